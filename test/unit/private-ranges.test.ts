// The sandbox runtimes carry the platform's private-address list as generated files: change the list in
// functions/platform/outbound.ts, regenerate, or this fails.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedRangeFiles } from '../../bin/generate-private-ranges.js';

describe('outbound: the private-address list in the script runtimes', () => {
  for (const { file, text } of generatedRangeFiles()) {
    it(`${file.split('/layers/')[1]} is what outbound.ts generates (run \`npm run generate:ranges\` when this fails)`, () => {
      // Act
      const committed = readFileSync(file, 'utf8');
      // Assess
      expect(committed === text, `${file} is stale: run npm run generate:ranges`).toBe(true);
    });
  }
});
