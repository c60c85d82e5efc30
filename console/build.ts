// Bundles the web console (console/src) with esbuild into a folder of static files: index.html, app.js, app.css.
// `npm run build:console` writes console/dist; the local server and the tests build into a folder of their own.
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, buildSync } from 'esbuild';

const consoleDir = fileURLToPath(new URL('.', import.meta.url));
export const defaultConsoleOutDir = join(consoleDir, 'dist');

const options = (outdir: string): BuildOptions => ({
  entryPoints: { app: join(consoleDir, 'src/main.tsx') },
  outdir,
  bundle: true,
  minify: true,
  format: 'esm',
  // The editor and the charts are chunks of their own, loaded when a page first needs them.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'silent',
});

const copyStatic = (outdir: string) => cpSync(join(consoleDir, 'static'), outdir, { recursive: true });

/** Builds the console into `outdir` and returns it. */
export async function buildConsole(outdir = defaultConsoleOutDir): Promise<string> {
  mkdirSync(outdir, { recursive: true });
  await build(options(outdir));
  copyStatic(outdir);
  return outdir;
}

/** The same, synchronously: CDK asset bundling (lib/console.ts) cannot wait for a promise. */
export function buildConsoleSync(outdir: string): void {
  mkdirSync(outdir, { recursive: true });
  buildSync(options(outdir));
  copyStatic(outdir);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(`console built into ${await buildConsole()}`);
