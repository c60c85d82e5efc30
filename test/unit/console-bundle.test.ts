// The console's first load stays light: the JavaScript a page loads before any lazy chunk (the editor, the charts) is
// under 200 KB gzipped.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../console/build.js';

const folder = mkdtempSync(join(tmpdir(), 'console-bundle-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A module and the chunks it imports statically (`import("...")` loads later and is left out), each once. */
function firstLoad(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(join(folder, file), 'utf8');
  for (const [, path] of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},\s*]+from\s*)?"\.\/([^"]+)"/g)) firstLoad(join(file, '..', path!), seen);
  return seen;
}

describe('console bundle', () => {
  it('loads under 200 KB of gzipped JavaScript at first, the editor and the charts later', async () => {
    // Act
    await buildConsole(folder);
    const files = [...firstLoad('app.js')];
    const kb = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(folder, file)), { level: 9 }).length, 0) / 1024;
    // Assess
    expect(kb).toBeLessThan(200);
    expect(files.some((file) => readFileSync(join(folder, file), 'utf8').includes('cm-editor'))).toBe(false);
  }, 60_000);
});
