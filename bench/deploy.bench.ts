// What the AWS build costs: `cdk synth` end to end (one esbuild pass for every handler), and each Lambda bundle's
// cold-start import (a fresh Node process importing the function's index.mjs, as Lambda's runtime does) next to a
// minimal handler's import measured the same way in the same run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assetDirectory, platformEntries, platformPass, repositoryRoot } from '../lib/bundles.js';
import { type BenchFigure, percentile } from './support.js';

export const name = 'deploy';
export const description = 'npx cdk synth wall time; cold import of every Lambda bundle (median, max) vs a minimal handler';

const synthTargetSeconds = 90;
const importTargetMs = 200;

/** Milliseconds a fresh Node process spends importing `file`, measured inside that process. */
function importMs(file: string): number {
  const script = `const started = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - started));`;
  return Number(
    execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
      cwd: '/',
      // As Lambda's runtime sets it: the bundles load the X-Ray SDK only there.
      env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs20.x' },
      encoding: 'utf8',
    }),
  );
}

const round = (value: number) => Math.round(value * 10) / 10;

export async function run(): Promise<BenchFigure[]> {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-synth-'));
  const started = performance.now();
  execFileSync('npx', ['cdk', 'synth', '--quiet', '--output', outdir], { cwd: repositoryRoot, stdio: 'ignore' });
  const synthSeconds = (performance.now() - started) / 1000;

  const pass = platformPass();
  const imports = platformEntries()
    .map((entry) => importMs(join(assetDirectory(pass, entry), 'index.mjs')))
    .sort((a, b) => a - b);
  const minimal = join(mkdtempSync(join(tmpdir(), 'bench-minimal-')), 'index.mjs');
  writeFileSync(minimal, 'export const handler = async () => ({ statusCode: 200, body: "ok" });\n');
  const baseline = { name: `${name}.minimal_handler_import_ms`, value: round(importMs(minimal)) };
  return [
    { name: `${name}.synth_seconds`, value: round(synthSeconds), unit: 's', target: synthTargetSeconds, better: 'lower' },
    { name: `${name}.bundle_import_median_ms`, value: round(percentile(imports, 50)), unit: 'ms', target: importTargetMs, better: 'lower', baseline },
    { name: `${name}.bundle_import_max_ms`, value: round(imports.at(-1)!), unit: 'ms', target: importTargetMs * 3, better: 'lower', baseline },
    { ...baseline, unit: 'ms', target: importTargetMs, better: 'lower' },
  ];
}
