// Property-based fuzzing from the OpenAPI document: every operation gets hostile values for its own fields (wrong
// types, missing and extra fields, huge and deep values, unicode, __proto__/constructor keys, numbers at and past
// every limit). Never a 500, always the envelope, and a refused request writes nothing.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../functions/platform/openapi.js';
import { routes } from '../../functions/routes.js';
import { givenEventFlow } from '../support/flows.js';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenScript } from '../support/scripts.js';

type Schema = {
  type?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
};
interface Operation {
  method: string;
  'x-error-format'?: 'jsonRpc' | 'oauth';
  path: string;
  operationId: string;
  parameters?: Array<{ name: string; in: string; schema: Schema }>;
  requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, Schema> } } } };
}

const runsPerOperation = 4;
const openApi = buildOpenApiDocument(routes, 'http://local', 'test');
const operations: Operation[] = Object.entries(openApi.paths).flatMap(([path, methods]) =>
  Object.entries(methods as Record<string, Omit<Operation, 'method' | 'path'>>).map(([method, operation]) => ({
    ...operation,
    method: method.toUpperCase(),
    path,
  })),
);

const deep = (levels: number): unknown => {
  let value: unknown = 'bottom';
  for (let level = 0; level < levels; level++) value = level % 2 ? [value] : { nested: value };
  return value;
};

/** Values at and past a field's own limits, from its schema. */
function boundaryValues(schema: Schema): unknown[] {
  const values: unknown[] = [];
  for (const bound of [schema.minimum, schema.maximum]) if (typeof bound === 'number') values.push(bound, bound - 1, bound + 1, bound + 0.5);
  for (const length of [schema.minLength, schema.maxLength])
    if (typeof length === 'number') values.push('x'.repeat(Math.max(0, length - 1)), 'é'.repeat(length), 'x'.repeat(length + 1));
  if (typeof schema.maxItems === 'number') values.push(Array.from({ length: schema.maxItems + 1 }, () => 'item'));
  return values;
}

const hostileValue = (schema: Schema) =>
  fc.oneof(
    fc.constantFrom(
      null,
      true,
      -1,
      0,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      '',
      ' ',
      '\u0000',
      '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ‮',
      '%ff',
      '../../etc/passwd',
      '__proto__',
      ...boundaryValues(schema),
    ),
    fc.constantFrom(
      deep(30),
      deep(2_000),
      'z'.repeat(300_000),
      { __proto__: { polluted: true } },
      JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
    ),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.integer(),
    fc.double(),
    fc.jsonValue({ maxDepth: 4 }),
  );

const fieldsOf = (operation: Operation): Record<string, Schema> => ({
  ...Object.fromEntries((operation.parameters ?? []).map((parameter) => [parameter.name, parameter.schema])),
  ...(operation.requestBody?.content['application/json'].schema.properties ?? {}),
});

/** Each field present with a hostile value or absent, plus extra keys. */
const requestArbitrary = (operation: Operation) => {
  const fields = fieldsOf(operation);
  const record = Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, fc.option(hostileValue(schema), { nil: undefined })]));
  return fc.record({
    fields: fc.record(record),
    extra: fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', 'ünïcode'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
  });
};

function send(operation: Operation, values: { fields: Record<string, unknown>; extra: Record<string, unknown> }, apiKey: string): Promise<ApiResponse> {
  let path = operation.path;
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values.fields)) {
    if (value === undefined) continue;
    if (path.includes(`{${name}}`) || path.includes(`{${name}+}`))
      path = path.replace(new RegExp(`\\{${name}\\+?\\}`), encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 2_000));
    else body[name] = value;
  }
  path = path.replace(/\{\w+\+?\}/g, 'missing');
  Object.defineProperties(body, Object.fromEntries(Object.entries(values.extra).map(([key, value]) => [key, { value, enumerable: true }])));
  const headers = { 'x-api-key': apiKey, 'x-admin-key': 'adm_wrong' };
  if (operation.method === 'GET' || operation.method === 'DELETE') {
    const query = new URLSearchParams(
      Object.entries(body).map(
        ([key, value]) => [key, (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).slice(0, 2_000)] as [string, string],
      ),
    );
    return api.request(operation.method, `${path}${query.size ? `?${query}` : ''}`, { headers });
  }
  return api.request(operation.method, path, { rawBody: JSON.stringify(body), headers });
}

function answersItsErrorFormat(operation: Operation, body: ApiResponse['body']): boolean {
  if (operation['x-error-format'] === 'jsonRpc')
    return body?.jsonrpc === '2.0' && Number.isInteger(body.error?.code) && typeof body.error?.message === 'string';
  if (operation['x-error-format'] === 'oauth') return typeof body?.error === 'string' && body.error.length > 0;
  return body?.success === false && typeof body.error?.code === 'string';
}

let api: TestApi;
let fuzzer: TestUser;

/** What the fuzzing user owns: counted before and after. */
async function holdings() {
  const as = api.as(fuzzer.apiKey);
  const [scripts, resources, documents, flows, keys] = await Promise.all([
    as.get('/api/sdk/v1/scripts?limit=100'),
    as.get('/api/sdk/v1/resources?limit=100'),
    as.get('/api/sdk/v1/documents?limit=100'),
    as.post('/api/sdk/v1/flows/searchFlows', { limit: 100 }),
    as.get('/api/sdk/v1/keys?limit=100'),
  ]);
  return [scripts, resources, documents, flows, keys].map((response) => response.text.length > 0 && JSON.stringify(response.body.data ?? response.body.error));
}

beforeAll(async () => {
  process.env.RATE_LIMIT_PER_MINUTE = '1000000';
  process.env.RATE_LIMIT_PER_USER_PER_MINUTE = '1000000';
  api = await startTestPlatform();
  fuzzer = await api.givenUser();
}, 300_000);
afterAll(() => api.stop());

describe('hardening: fuzzing every operation of the OpenAPI document', () => {
  it('never answers 500, always answers the envelope, and writes nothing when it refuses', async () => {
    // Prepare
    const before = await holdings();
    const failures: string[] = [];
    let attempts = 0;
    let accepted = 0;
    // Act
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(operation), async (values) => {
          const response = await send(operation, values, fuzzer.apiKey);
          attempts += 1;
          if (response.status < 400) accepted += 1;
          // Successes may answer a document of their own format (OpenAPI, x402 /supported); every error is the envelope,
          // or the protocol's own error where the operation declares one (MCP's JSON-RPC, OAuth's RFC 6749).
          const enveloped = response.status < 400 || answersItsErrorFormat(operation, response.body);
          if (response.status >= 500 || !enveloped) failures.push(`${operation.operationId} ${response.status} ${response.text.slice(0, 300)}`);
        }),
        { numRuns: runsPerOperation, seed: 12 },
      );
    }
    const after = await holdings();
    console.log(
      `fuzzing: ${operations.length} operations, ${attempts} attempts, ${accepted} accepted, 500s ${failures.filter((failure) => / 5\d\d /.test(failure)).length}, outside the envelope ${failures.length}`,
    );
    // Assess
    expect(failures).toEqual([]);
    if (accepted === 0) expect(after).toEqual(before);
  }, 900_000);
});

/** The routes that operate durable runs, approvals included: the sweep below sends each its own hostile inputs. */
const durableRunOperations = [
  'cancelExecution',
  'rerunExecution',
  'replayExecutions',
  'followExecutionLogs',
  'completeCallback',
  'completeSignedCallback',
  'listApprovals',
  'decideApproval',
  'getSignedApproval',
  'decideSignedApproval',
];

const replay = '/api/sdk/v1/executions/replay';
/** Ids of the wrong shape and of no run: long, traversing, control and unicode characters, percent signs, prototype names. */
const hostileIds = ['x'.repeat(5_000), '../../etc', '\u0000', 'exe_\uffff', '𝔘‮', '%ff', 'constructor', '__proto__', '-1', '1e308'];
const hostileBodies: unknown[] = [
  { result: deep(2_000) },
  { error: { code: 'x'.repeat(300_000), message: 1 } },
  { result: 'x'.repeat(300_000) },
  { fromStep: ['a'] },
  { fromStep: 'x'.repeat(10_000) },
  { decision: 'approve', comment: deep(30) },
  { decision: { approve: true } },
  { token: 5 },
  [],
  'text',
  null,
];

describe('hardening: malformed input to the durable-runs routes', () => {
  /** Owns a script and a flow: replay reads the window only for a script or flow the caller may replay. */
  let operator: TestUser;
  let scriptId: string;
  let flowId: string;
  beforeAll(async () => {
    operator = await api.givenUser();
    scriptId = (await givenScript(api, operator)).id;
    flowId = (await givenEventFlow(api, operator)).id;
  });

  it('has every durable-runs route in the document the fuzzing above walks', () => {
    // Assess
    expect(durableRunOperations.filter((operationId) => !operations.some((operation) => operation.operationId === operationId))).toEqual([]);
  });

  it('refuses a replay window that is inverted, out of range or not a date with VALIDATION_ERROR naming the field', async () => {
    // Prepare
    const as = api.as(operator.apiKey);
    const windows: Array<{ window: Record<string, unknown>; field: string }> = [
      { window: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, field: 'to' },
      { window: { from: '2026-01-01T00:00:00+05:00', to: '2025-12-31T18:00:00Z' }, field: 'to' },
      { window: { from: '9999-12-31T23:59:59Z' }, field: 'from' },
      { window: { to: '9999-12-31T23:59:59-14:00' }, field: 'to' },
      { window: { from: '0000-01-01T00:00:00Z' }, field: 'from' },
      { window: { from: '+275760-09-13T00:00:00Z' }, field: 'from' },
      { window: { to: '2026-02-30T00:00:00Z' }, field: 'to' },
      { window: { from: 'yesterday' }, field: 'from' },
      { window: { from: 1_767_225_600_000 }, field: 'from' },
      { window: { to: 'x'.repeat(300_000) }, field: 'to' },
      { window: { from: { $gt: '' } }, field: 'from' },
    ];
    // Act
    const answers = await Promise.all(windows.flatMap(({ window }) => [as.post(replay, { scriptId, ...window }), as.post(replay, { flowId, ...window })]));
    // Assess
    answers.forEach((answer, index) => {
      const { window, field } = windows[Math.floor(index / 2)]!;
      expect(answer.status, `${JSON.stringify(window).slice(0, 100)}: ${answer.text.slice(0, 300)}`).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    });
  });

  it('answers hostile ids and bodies on every durable-runs route with a 4xx in the envelope, never a 500', async () => {
    // Prepare
    const as = api.as(operator.apiKey);
    const requests: Array<[string, string, unknown]> = hostileIds
      .flatMap((raw) => [[raw, raw] as const, [raw, encodeURIComponent(raw)] as const])
      .flatMap(([raw, id]) => [
        ['POST', `/api/sdk/v1/executions/${id}/cancel`, {}],
        ['POST', `/api/sdk/v1/executions/${id}/rerun`, { fromStep: 'a' }],
        ['GET', `/api/sdk/v1/executions/${id}/logs?after=${id}&wait=${id}`, undefined],
        ['POST', `/api/sdk/v1/executions/${id}/callbacks/${id}`, { result: 1 }],
        ['POST', `/api/callbacks/${id}/${id}/${id}`, { result: 1 }],
        ['POST', `/api/sdk/v1/approvals/${id}`, { decision: 'approve' }],
        ['GET', `/api/sdk/v1/approvals/${id}/signed?token=${id}`, undefined],
        ['POST', `/api/sdk/v1/approvals/${id}/signed`, { token: raw, decision: 'reject' }],
        ['POST', replay, { scriptId: raw }],
        ['POST', replay, { flowId: raw, from: raw, to: raw }],
      ]);
    for (const body of hostileBodies)
      requests.push(
        ['POST', '/api/sdk/v1/executions/exe_none/cancel', body],
        ['POST', '/api/sdk/v1/executions/exe_none/rerun', body],
        ['POST', '/api/sdk/v1/executions/exe_none/callbacks/cb_none', body],
        ['POST', '/api/callbacks/exe_none/cb_none/token', body],
        ['POST', '/api/sdk/v1/approvals/apr_none', body],
        ['POST', '/api/sdk/v1/approvals/apr_none/signed', body],
        ['POST', replay, body],
      );
    requests.push(['GET', '/api/sdk/v1/approvals?limit=-1&offset=1e308', undefined], ['GET', `/api/sdk/v1/approvals?limit=${'9'.repeat(400)}`, undefined]);
    // Act
    const answers = await Promise.all(
      requests.map(([method, path, body]) =>
        method === 'GET' ? as.get(path) : api.request(method, path, { rawBody: JSON.stringify(body), headers: { 'x-api-key': operator.apiKey } }),
      ),
    );
    // Assess
    const wrong = answers
      .map((answer, index) => ({ answer, request: requests[index]! }))
      .filter(({ answer }) => answer.status < 400 || answer.status >= 500 || answer.body?.success !== false || typeof answer.body.error?.code !== 'string')
      .map(({ answer, request: [method, path] }) => `${method} ${path.slice(0, 80)}: ${answer.status} ${answer.text.slice(0, 200)}`);
    expect(wrong).toEqual([]);
  });
});
