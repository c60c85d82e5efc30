import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { ConflictError, TooManyRequestsError } from '../../functions/platform/errors.js';
import { Reply, errorResult, httpHandler } from '../../functions/platform/http.js';
import { logger, redact } from '../../functions/platform/logger.js';
import { defineRoutes } from '../../functions/platform/route.js';
import { httpEvent, lambdaContext } from '../support/lambda-event.js';

const testRoutes = defineRoutes('test', {
  echoThing: {
    method: 'POST',
    path: '/things/{thingId}',
    auth: 'public',
    summary: 'echo',
    input: z.strictObject({ thingId: z.string().regex(/^t_/), count: z.number().int().min(1), tags: z.array(z.string()).optional() }),
  },
  createThing: { method: 'POST', path: '/things', auth: 'public', summary: 'create', successStatus: 201 },
  listThings: { method: 'GET', path: '/things', auth: 'public', summary: 'list', input: z.object({ limit: z.coerce.number().int().max(100).default(10) }) },
});

const post = (path: string, body: unknown, pathParameters?: Record<string, string>) => httpEvent({ method: 'POST', path, body, pathParameters });
const parse = (result: { body?: string }) => JSON.parse(result.body!);

describe('http kit: input', () => {
  const echo = httpHandler(testRoutes.echoThing, async ({ input }) => input);

  it('merges path parameters and body, validated by the route schema', async () => {
    // Act
    const result = await echo(post('/things/t_1', { count: 2 }, { thingId: 't_1' }), lambdaContext);
    // Assess
    expect(result.statusCode).toBe(200);
    expect(parse(result)).toEqual({ success: true, data: { thingId: 't_1', count: 2 } });
  });

  it('names the field and the offending value of the first problem', async () => {
    // Act
    const result = await echo(post('/things/t_1', { count: 0 }, { thingId: 't_1' }), lambdaContext);
    // Assess
    expect(result.statusCode).toBe(400);
    expect(parse(result).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'count', value: 0 } });
  });

  it('points into arrays with a dotted path', async () => {
    // Act
    const result = await echo(post('/things/t_1', { count: 1, tags: ['ok', 7] }, { thingId: 't_1' }), lambdaContext);
    // Assess
    expect(parse(result).error.details).toMatchObject({ field: 'tags.1', value: 7 });
  });

  it('refuses unknown fields of a strict schema by name', async () => {
    // Act
    const result = await echo(post('/things/t_1', { count: 1, colour: 'red' }, { thingId: 't_1' }), lambdaContext);
    // Assess
    expect(parse(result).error).toMatchObject({ message: 'unknown field colour', details: { field: 'colour', value: 'red' } });
  });

  it('lets the path parameter win over a body field of the same name', async () => {
    // Act
    const result = await echo(post('/things/t_1', { count: 1, thingId: 't_other' }, { thingId: 't_1' }), lambdaContext);
    // Assess
    expect(parse(result).data.thingId).toBe('t_1');
  });

  it('coerces query strings where the schema says so', async () => {
    // Prepare
    const list = httpHandler(testRoutes.listThings, async ({ input }) => input);
    // Act
    const result = await list(httpEvent({ method: 'GET', path: '/things', query: { limit: '5' } }), lambdaContext);
    // Assess
    expect(parse(result).data).toEqual({ limit: 5 });
  });
});

describe('http kit: output', () => {
  it("uses the route's success status", async () => {
    // Prepare
    const create = httpHandler(testRoutes.createThing, async () => ({ id: 't_1' }));
    // Act
    const result = await create(post('/things', {}), lambdaContext);
    // Assess
    expect(result.statusCode).toBe(201);
    expect(result.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': expect.any(String) });
  });

  it('sends confirmations as {success, message} and metadata beside data', async () => {
    // Prepare
    const confirm = httpHandler(testRoutes.createThing, async () => Reply.message('thing deleted'));
    const meta = httpHandler(testRoutes.createThing, async () => Reply.withMeta([1], { total: 1, limit: 10, offset: 0 }));
    // Act
    const confirmed = await confirm(post('/things', {}), lambdaContext);
    const withMeta = await meta(post('/things', {}), lambdaContext);
    // Assess
    expect(parse(confirmed)).toEqual({ success: true, message: 'thing deleted' });
    expect(parse(withMeta)).toEqual({ success: true, data: [1], meta: { total: 1, limit: 10, offset: 0 } });
  });

  it('maps named errors to their code, status and headers', async () => {
    // Prepare
    const conflict = httpHandler(testRoutes.createThing, async () => {
      throw new ConflictError('thing has 3 active installations');
    });
    const busy = httpHandler(testRoutes.createThing, async () => {
      throw new TooManyRequestsError('CONCURRENCY_LIMIT', 'too many at once', 2);
    });
    // Act
    const conflicted = await conflict(post('/things', {}), lambdaContext);
    const limited = await busy(post('/things', {}), lambdaContext);
    // Assess
    expect(conflicted.statusCode).toBe(409);
    expect(parse(conflicted)).toEqual({ success: false, error: { code: 'CONFLICT', message: 'thing has 3 active installations' } });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers).toMatchObject({ 'Retry-After': '2' });
  });

  it('answers a caller read on a public route with 401', async () => {
    // Prepare
    const nosy = httpHandler(testRoutes.createThing, async ({ caller }) => caller.userId);
    // Act
    const result = await nosy(post('/things', {}), lambdaContext);
    // Assess
    expect(result.statusCode).toBe(401);
  });
});

describe('http kit: unexpected errors', () => {
  it('answers a generic INTERNAL_ERROR without details, and logs the detail without secrets under the request id', async () => {
    // Prepare
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    // Act
    const result = errorResult(Object.assign(new Error('db password=hunter2 leaked'), { token: 'tok_secret' }), 'req-1');
    // Assess
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('hunter2');
    expect(JSON.parse(result.body!)).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
    expect(result.headers).toMatchObject({ 'X-Request-Id': 'req-1' });
    expect(JSON.stringify(logged.mock.calls)).toContain('hunter2');
    logged.mockRestore();
  });

  it('redacts secret-looking fields at any depth before logging', () => {
    // Act
    const safe = redact({ apiKey: 'amp_x', nested: { credentials: { token: 't' }, Authorization: 'Bearer amp_y', ok: 1 }, list: [{ password: 'p' }] });
    // Assess
    expect(JSON.stringify(safe)).not.toMatch(/amp_x|amp_y|"p"|"t"/);
    expect(safe).toMatchObject({ nested: { ok: 1 } });
  });
});
