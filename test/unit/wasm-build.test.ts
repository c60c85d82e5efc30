import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedModule, wasmSources } from '../../bin/build-wasm.js';

describe('WebAssembly modules', () => {
  it.each(wasmSources.map((entry) => [entry.output, entry]))('%s is what `npm run build:wasm` makes of its source', async (_output, entry) => {
    // Act
    const fresh = await generatedModule(entry);
    // Assess
    expect(readFileSync(new URL(`../../${entry.output}`, import.meta.url), 'utf8')).toBe(fresh);
  });
});
