// The committed client types must be what the route table generates today: change a route, regenerate.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedSchema, schemaFile } from '../../clients/typescript/generate.js';

describe('client: generated types', () => {
  it('are up to date with the route table (run `npm run generate:client` when this fails)', async () => {
    // Act
    const fresh = await generatedSchema();
    // Assess
    expect(readFileSync(schemaFile, 'utf8') === fresh, 'clients/typescript/src/schema.ts is stale: run npm run generate:client').toBe(true);
  });
});
