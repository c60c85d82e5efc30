// A real Chromium (Debian's package, installed by bin/ensure-tools.sh --tests) driven by playwright-core, with a
// fresh profile per launch and no traffic of its own: only the pages a test opens reach the network.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, type Page, chromium } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';
export const screenshotDir = fileURLToPath(new URL('../.screenshots/', import.meta.url));

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Saves a full-page screenshot as test/.screenshots/<name>.png (gitignored). */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  // A persistent context is how playwright takes --user-data-dir: a fresh folder, removed on close.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  mkdirSync(screenshotDir, { recursive: true });
  return {
    context,
    page,
    screenshot: async (name) => {
      await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
