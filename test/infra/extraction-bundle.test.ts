import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extraction } from '../../functions/documents/limits.js';
import { documentRoutes } from '../../functions/documents/routes.js';
import { assetDirectory, bundleAll } from '../../lib/bundles.js';

const worker = 'functions/documents/extract-worker.ts';

describe('infra: document extraction in a bundle', () => {
  it('starts its worker from the bundled JavaScript, outside the repository, with the caps in force', () => {
    // Prepare: the upload function and the extraction module in one pass, as the stack bundles them
    const pass = bundleAll([documentRoutes.uploadDocument.handler, worker]);
    const bundle = pathToFileURL(join(assetDirectory(pass, worker), 'index.mjs')).href;
    const script = `const { extractChunks } = await import(${JSON.stringify(bundle)});
const read = (html) => extractChunks(new TextEncoder().encode(html), 'text/html').then((chunks) => chunks.map((chunk) => chunk.content), (error) => error.message);
process.stdout.write(JSON.stringify([await read('<h1>Title</h1><p>A bundled worker read this.</p>'), await read('<div>'.repeat(1000))]));`;
    // Act: from `/`, so nothing resolves from the repository (no node_modules, no TypeScript loader)
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: '/', env: { PATH: process.env.PATH }, encoding: 'utf8' });
    // Assess
    expect(JSON.parse(output)).toEqual([['A bundled worker read this.'], 'the HTML nests elements more than 256 deep; the limit is 256']);
  }, 300_000);

  it('gives every function that processes documents room for the worker within its own memory and time', () => {
    // Prepare: a worker's heap, what is counted while inflating, and the parent's own share (the function's default)
    const workerMb = extraction.workerHeapMb + extraction.pdfInflatedBytes / (1024 * 1024) + 256;
    // Act
    const processing = [documentRoutes.uploadDocument, documentRoutes.completeUpload, documentRoutes.shareDocument];
    // Assess
    for (const route of processing) {
      expect(route.memoryMb, route.operation).toBeGreaterThanOrEqual(workerMb);
      expect(route.timeoutSeconds, route.operation).toBeGreaterThan(extraction.timeMs / 1000);
    }
  });
});
