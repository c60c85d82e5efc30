// One esbuild pass for every Lambda handler of the platform (a pass per function took minutes on a small machine).
// Code splitting writes each shared module once; each function's asset directory then holds its entry as
// `index.mjs` plus only the chunks that entry reaches, statically or through `import()`.
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, type Metafile, buildSync } from 'esbuild';
import { busConsumers, templateBuildStateConsumer } from '../functions/consumers.js';
import { payoutRunnerFunction } from '../functions/payments/routes.js';
import { authorizerHandler, deployedRoutes, fallbackHandler } from '../functions/routes.js';
import { npmInstallerFunction, scriptResourceCallFunction } from '../functions/scripts/routes.js';

export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** Every handler module the stack deploys: routes, bus consumers and the functions outside the route table. */
export const platformEntries = (): string[] => [
  ...new Set([
    ...deployedRoutes.map((route) => route.handler),
    ...busConsumers.map((consumer) => consumer.handler),
    templateBuildStateConsumer.handler,
    scriptResourceCallFunction.handler,
    npmInstallerFunction.handler,
    payoutRunnerFunction.handler,
    authorizerHandler,
    fallbackHandler,
  ]),
];

/** esbuild settings of every function; exported so the bundling test checks these, not a copy. */
export const platformBundling = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // ESM has no `require`; CommonJS dependencies bundled into the ESM output still call it.
  banner: { js: "import { createRequire as __platformCreateRequire } from 'node:module'; const require = __platformCreateRequire(import.meta.url);" },
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  // File and line are what stack traces need; embedding the sources would triple the maps for nothing.
  sourcesContent: false,
  // The mode is fixed at bundling time: branches written against `process.env.PLATFORM_MODE === 'local'` (and the local
  // adapters they import) drop out of every Lambda bundle. The AWS SDK is bundled too: the version package.json pins.
  define: { 'process.env.PLATFORM_MODE': '"aws"' },
  // The kernel's HTTP kit takes its metrics and rate limiter from the composition, which names the adapters: every
  // function loads that small module first, whatever its own imports reach.
  inject: ['functions/app/edge.ts'],
  logLevel: 'warning',
} as const satisfies BuildOptions;

/** The output of one pass: where each entry's bundle and chunks were written, and esbuild's metafile. */
export interface BundlePass {
  outdir: string;
  metafile: Metafile;
  /** entry module -> its output file, relative to `outdir`. */
  outputs: Map<string, string>;
}

const outName = (entry: string) =>
  entry
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-');

/** Bundles `entries` in one esbuild call into a fresh directory. */
export function bundleAll(entries: string[], outdir = mkdtempSync(join(tmpdir(), 'platform-bundles-'))): BundlePass {
  const { metafile } = buildSync({
    ...platformBundling,
    absWorkingDir: repositoryRoot,
    entryPoints: entries.map((entry) => ({ in: entry, out: outName(entry) })),
    outdir,
    metafile: true,
  });
  const outputs = new Map<string, string>();
  for (const [output, { entryPoint }] of Object.entries(metafile.outputs)) {
    const file = relative(outdir, join(repositoryRoot, output));
    // Modules reached through `import()` are entry points too, written among the chunks.
    if (entryPoint && !file.startsWith('chunks/')) outputs.set(entryPoint, file);
  }
  return { outdir, metafile, outputs };
}

/**
 * The output files an entry loads: its own and every chunk it reaches, transitively. With `atImport`, only those that
 * importing the entry loads, not the chunks behind an `import()` (what a cold start pays before the first request).
 */
export function closureOf(pass: BundlePass, entry: string, { atImport = false } = {}): string[] {
  const metaKey = (file: string) => relative(repositoryRoot, join(pass.outdir, file));
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of pass.metafile.outputs[metaKey(file)]!.imports)
      if (!imported.external && !(atImport && imported.kind === 'dynamic-import')) visit(relative(pass.outdir, join(repositoryRoot, imported.path)));
  };
  visit(pass.outputs.get(entry)!);
  return [...seen];
}

/** An entry's Lambda asset directory: `index.mjs` (and its map) beside hard links to the chunks it reaches. */
export function assetDirectory(pass: BundlePass, entry: string): string {
  const own = pass.outputs.get(entry)!;
  const dir = join(pass.outdir, 'assets', outName(entry));
  if (existsSync(dir)) return dir;
  for (const file of closureOf(pass, entry)) {
    if (file === own) continue;
    for (const name of [file, `${file}.map`]) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      linkSync(join(pass.outdir, name), join(dir, name));
    }
  }
  mkdirSync(dir, { recursive: true });
  const code = readFileSync(join(pass.outdir, own), 'utf8');
  writeFileSync(join(dir, 'index.mjs'), code.replace(`//# sourceMappingURL=${basename(own)}.map`, '//# sourceMappingURL=index.mjs.map'));
  copyFileSync(join(pass.outdir, `${own}.map`), join(dir, 'index.mjs.map'));
  return dir;
}

let pass: BundlePass | undefined;

/** The process's one pass over every platform entry (plus `entry`, when a probe asks for one that is not). */
export function platformPass(entry?: string): BundlePass {
  if (!pass || (entry && !pass.outputs.has(entry))) pass = bundleAll([...new Set([...platformEntries(), ...(entry ? [entry] : [])])]);
  return pass;
}

export const platformAsset = (entry: string): string => assetDirectory(platformPass(entry), entry);
