// The web console's first load with a cold cache (a fresh Chromium profile each time) against the local platform,
// until the signed-in home dashboard shows today's runs, and the size of its JavaScript gzipped.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../test/support/browser.js';
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'console';
export const description = 'web console: cold-cache first load until the signed-in home dashboard renders (Chromium), and its JavaScript gzipped';

const loads = 5;
const targetFirstLoadMs = 1000;
const targetJsKb = 200;

const gzipKb = (bytes: Buffer) => Math.round((gzipSync(bytes, { level: 9 }).length / 1024) * 10) / 10;

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name));
}

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  try {
    const folder = await platform.buildConsole();
    const totalJsKb = Math.round(jsFiles(folder).reduce((sum, file) => sum + gzipKb(readFileSync(file)), 0) * 10) / 10;
    const times: number[] = [];
    let firstLoadJsKb = 0;
    for (let round = 0; round < loads; round += 1) {
      const browser = await launchBrowser();
      try {
        const { page } = browser;
        // Signed in already, as a second tab of a signed-in user would be; the sign-in itself is one GET /me.
        await page.addInitScript(`sessionStorage.setItem('platform.apiKey', ${JSON.stringify(platform.dev.apiKey)})`);
        const scripts: string[] = [];
        page.on('response', (response) => {
          if (response.url().endsWith('.js')) scripts.push(response.url());
        });
        const started = performance.now();
        await page.goto(`${platform.baseUrl}/`);
        await page.getByRole('region', { name: 'Runs today' }).waitFor();
        times.push(performance.now() - started);
        firstLoadJsKb = Math.round(scripts.reduce((sum, url) => sum + gzipKb(readFileSync(join(folder, new URL(url).pathname))), 0) * 10) / 10;
      } finally {
        await browser.close();
      }
    }
    times.sort((a, b) => a - b);
    console.log(
      `  cold loads: ${times.map((ms) => Math.round(ms)).join(', ')} ms; JavaScript: ${firstLoadJsKb} KB gzipped on first load, ${totalJsKb} KB in all`,
    );
    return [
      { name: 'console.first_load_p50_ms', value: Math.round(percentile(times, 50)), unit: 'ms', target: targetFirstLoadMs, better: 'lower' },
      { name: 'console.first_load_js_gzip_kb', value: firstLoadJsKb, unit: 'KB', target: targetJsKb, better: 'lower' },
      { name: 'console.total_js_gzip_kb', value: totalJsKb, unit: 'KB', target: targetJsKb, better: 'lower' },
    ];
  } finally {
    await platform.stop();
  }
}
