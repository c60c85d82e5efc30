import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../functions/platform/errors.js';
import { boundedEcho, maxEchoChars, maxInputDepth, nestsDeeperThan } from '../../functions/platform/json-bounds.js';
import { parseBoundedJson } from '../../functions/platform/validation.js';
import { parseJson } from '../../functions/platform/middlewares/parse.js';
import { createRouteMatcher } from '../../functions/platform/route-match.js';
import { routes } from '../../functions/routes.js';
import { defaultScopes, holdsScope, mayHoldScope } from '../../functions/platform/scopes.js';
import { storedOutput } from '../../functions/scripts/runs/stored-run.js';

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('http bounds: request JSON', () => {
  it('accepts a body nested to the limit and refuses one past it with a bounded echo', () => {
    // Prepare
    const atLimit = `{"a":${nested(maxInputDepth - 1)}}`;
    const past = `{"a":${nested(100_000)}}`;
    // Act
    const accepted = parseJson(atLimit);
    let refused: unknown;
    try {
      parseJson(past);
    } catch (error) {
      refused = error;
    }
    // Assess
    expect(nestsDeeperThan(accepted, maxInputDepth)).toBe(false);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body', maxDepth: maxInputDepth } });
    expect(JSON.stringify((refused as ValidationError).details).length).toBeLessThan(2 * maxEchoChars);
  });

  it('echoes at most maxEchoChars of a refused value, and no deep value', () => {
    // Act
    const long = boundedEcho('x'.repeat(10_000)) as string;
    const deepValue = boundedEcho(parseBoundedJson(nested(20), 'data'));
    // Assess
    expect(long.length).toBe(maxEchoChars + 1);
    expect(deepValue).toBe('[a value nested deeper than 8 levels]');
    expect(new ValidationError('data', 'y'.repeat(5_000), 'refused').details!.value).toHaveLength(maxEchoChars + 1);
  });
});

describe('http bounds: paths', () => {
  it('matches no route for a segment that is not valid percent-encoding', () => {
    // Prepare
    const match = createRouteMatcher(routes);
    // Act
    const webhook = match('POST', '/api/webhooks/%ff');
    const document = match('GET', '/api/sdk/v1/documents/%E0%A4%A');
    // Assess
    expect(webhook.kind).toBe('none');
    expect(document.kind).toBe('none');
    expect(match('POST', '/api/webhooks/whk_1').kind).toBe('found');
  });
});

describe('http bounds: scopes', () => {
  it('gives every apiKey route of the route table its scopes', () => {
    // Act
    // The MCP server answers every valid key: each of its tools checks the key's scopes itself (test/e2e/mcp.test.ts).
    const checksPerTool = new Set(['serveMcp']);
    const unscoped = routes
      .filter((route) => route.auth === 'apiKey' && !route.scopes?.length && !checksPerTool.has(route.operation))
      .map((route) => route.operation);
    // Assess
    expect(unscoped).toEqual([]);
    expect(defaultScopes('documents', 'searchDocuments', 'POST')).toEqual(['documents:read', 'documents:write']);
  });

  it('lets a key bound to one script run that script only', () => {
    // Prepare
    const wanted = ['scripts:manage', 'scripts:execute', 'scripts:{scriptId}:execute'];
    const bound = ['scripts:scr_1:execute'];
    // Act
    const mayTry = mayHoldScope(bound, wanted);
    const own = holdsScope(bound, wanted, { scriptId: 'scr_1' });
    const other = holdsScope(bound, wanted, { scriptId: 'scr_2' });
    // Assess
    expect([mayTry, own, other]).toEqual([true, true, false]);
    expect(mayHoldScope(bound, ['documents:read', 'documents:write'])).toBe(false);
    expect(holdsScope(['*'], wanted, {})).toBe(true);
  });
});

describe('http bounds: stored script output', () => {
  it('keeps an output nested past DynamoDB depth as its JSON text, and one holding __proto__ keys as itself', () => {
    // Prepare
    const deepJson = JSON.stringify({ a: JSON.parse(nested(40)) });
    const protoJson = '{"__proto__":{"admin":true},"ok":1}';
    // Act
    const deepStored = storedOutput(JSON.parse(deepJson), deepJson);
    const proto = JSON.parse(protoJson);
    const protoStored = storedOutput(proto, protoJson);
    const plain = storedOutput({ ok: 1 }, '{"ok":1}');
    // Assess
    expect(deepStored).toEqual({ output: deepJson, outputAsJsonText: true });
    expect(protoStored).toEqual({ output: proto });
    expect(Object.hasOwn(protoStored.output as object, '__proto__')).toBe(true);
    expect(plain).toEqual({ output: { ok: 1 } });
  });
});
