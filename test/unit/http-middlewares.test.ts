import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { hasScope } from '../../functions/platform/caller.js';
import { type AppError, ValidationError } from '../../functions/platform/errors.js';
import { authenticate, checkScopes } from '../../functions/platform/middlewares/authenticate.js';
import { Reply, envelope, errorResult } from '../../functions/platform/middlewares/envelope.js';
import { maxBodyBytes, parseJson, readBody } from '../../functions/platform/middlewares/parse.js';
import { rateLimit } from '../../functions/platform/middlewares/rate-limit.js';
import type { RequestState } from '../../functions/platform/middlewares/request-state.js';
import { validateInput } from '../../functions/platform/middlewares/validate.js';
import type { RateLimiter } from '../../functions/platform/ports.js';
import { defineRoutes } from '../../functions/platform/route.js';
import { httpEvent } from '../support/lambda-event.js';

const routes = defineRoutes('test', {
  readThing: {
    method: 'GET',
    path: '/things',
    auth: 'apiKey',
    summary: 'read',
    scopes: ['things:read'],
    input: z.object({ limit: z.coerce.number().int().max(10) }),
  },
  createThing: {
    method: 'POST',
    path: '/things/{thingId}',
    auth: 'public',
    summary: 'create',
    successStatus: 201,
    input: z.strictObject({ thingId: z.string(), count: z.number() }),
  },
});

const stateOf = (route: RequestState['route'], caller?: RequestState['caller']): RequestState => ({
  route,
  requestId: 'req_1',
  headers: {},
  ...(caller && { caller }),
});
const caller = (scopes: string[]) => ({ userId: 'usr_1', keyId: 'key_1', scopes });
const rejection = async (work: () => unknown) => {
  try {
    await work();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a rejection');
};

/** A fixed-window limiter with `remaining` hits left. */
const limiterWith = (remaining: number, resetAt = 1_000): Pick<RateLimiter, 'hit'> & { buckets: string[] } => {
  const buckets: string[] = [];
  return {
    buckets,
    async hit(bucket, limit) {
      buckets.push(bucket);
      return { limit, remaining: Math.max(0, remaining - 1), resetAt, allowed: remaining > 0 };
    },
  };
};

describe('http middlewares: authenticate', () => {
  it('takes the caller from the authorizer context', async () => {
    // Prepare
    const state = stateOf(routes.readThing);
    // Act
    await authenticate(state, httpEvent({ method: 'GET', path: '/things', identity: { userId: 'usr_1', keyId: 'key_1', scopes: 'things:read,x' } }));
    // Assess
    expect(state.caller).toEqual(caller(['things:read', 'x']));
  });

  it('refuses an apiKey route without an identity, naming a revoked key', async () => {
    // Prepare
    const event = httpEvent({ method: 'GET', path: '/things' });
    event.requestContext.authorizer = { lambda: { reason: 'revoked' } };
    // Act
    const error = await rejection(() => authenticate(stateOf(routes.readThing), event));
    // Assess
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: 'this API key has been revoked' });
  });

  it('refuses a key without the route scope, and lets `*` through', () => {
    // Act
    const error = (() => {
      try {
        checkScopes(stateOf(routes.readThing, caller(['other'])));
      } catch (thrown) {
        return thrown as AppError;
      }
    })();
    // Assess
    expect(error).toMatchObject({ status: 403, details: { requiredScopes: ['things:read'] } });
    expect(() => checkScopes(stateOf(routes.readThing, caller(['*'])))).not.toThrow();
    expect(hasScope(caller(['things:read']), ['things:write', 'things:read'])).toBe(true);
  });
});

describe('http middlewares: rate limit', () => {
  it('counts the key and sets the X-RateLimit headers', async () => {
    // Prepare
    const state = stateOf(routes.readThing, caller(['*']));
    const limiter = limiterWith(5);
    // Act
    await rateLimit(state, limiter, { perKey: 5, perUser: 5 });
    // Assess
    expect(limiter.buckets).toEqual(['key:key_1', 'user:usr_1']);
    expect(state.headers).toEqual({ 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '4', 'X-RateLimit-Reset': '1000' });
  });

  it('answers 429 with Retry-After past the limit', async () => {
    // Act
    const error = await rejection(() => rateLimit(stateOf(routes.readThing, caller(['*'])), limiterWith(0, 1_030), { perKey: 5, perUser: 10 }, 1_000_000));
    // Assess
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, details: { limit: 5, per: 'key', retryAfter: 30 }, headers: { 'Retry-After': '30' } });
  });

  it('does not count requests without a caller', async () => {
    // Prepare
    const limiter = limiterWith(5);
    // Act
    await rateLimit(stateOf(routes.createThing), limiter, { perKey: 5, perUser: 5 });
    // Assess
    expect(limiter.buckets).toEqual([]);
  });
});

describe('http middlewares: parse', () => {
  it('decodes a base64 body and refuses one past the payload limit', () => {
    // Prepare
    const event = httpEvent({ method: 'POST', path: '/x' });
    // Act
    const decoded = readBody({ ...event, body: Buffer.from('{"a":1}').toString('base64'), isBase64Encoded: true });
    const tooLarge = (() => {
      try {
        readBody({ ...event, body: 'x'.repeat(maxBodyBytes + 1) });
      } catch (error) {
        return error as AppError;
      }
    })();
    // Assess
    expect(decoded).toBe('{"a":1}');
    expect(tooLarge?.status).toBe(413);
  });

  it('refuses malformed JSON and a body that is not an object', () => {
    // Act + Assess
    expect(() => parseJson('{')).toThrow(ValidationError);
    expect(() => parseJson('[1]')).toThrow('the JSON body must be an object');
    expect(parseJson('  ')).toEqual({});
  });
});

describe('http middlewares: validate', () => {
  it('merges query, body and path parameters and checks them against the route input', () => {
    // Act
    const input = validateInput(
      routes.createThing,
      httpEvent({ method: 'POST', path: '/things/t_1', body: { count: 2 }, pathParameters: { thingId: 't_1' } }),
      '{"count":2}',
    );
    // Assess
    expect(input).toEqual({ thingId: 't_1', count: 2 });
  });

  it('names the field and value of the first problem', () => {
    // Act
    const error = (() => {
      try {
        validateInput(routes.readThing, httpEvent({ method: 'GET', path: '/things', query: { limit: '50' } }), '');
      } catch (thrown) {
        return thrown as AppError;
      }
    })();
    // Assess
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'limit', value: '50' } });
  });
});

describe('http middlewares: envelope', () => {
  it('wraps data with the route success status and the request headers', () => {
    // Prepare
    const state = { ...stateOf(routes.createThing), headers: { 'X-RateLimit-Limit': '5' } };
    // Act
    const result = envelope(routes.createThing, state, { id: 't_1' });
    // Assess
    expect(result.statusCode).toBe(201);
    expect(result.headers).toMatchObject({ 'X-Request-Id': 'req_1', 'X-RateLimit-Limit': '5' });
    expect(JSON.parse(result.body!)).toEqual({ success: true, data: { id: 't_1' } });
  });

  it('sends a Reply as it asks, a raw body without a JSON content type', () => {
    // Act
    const result = envelope(routes.createThing, stateOf(routes.createThing), new Reply(402, 'pay first', { 'Content-Type': 'text/plain' }));
    // Assess
    expect(result).toMatchObject({ statusCode: 402, body: 'pay first', headers: { 'Content-Type': 'text/plain', 'X-Request-Id': 'req_1' } });
  });

  it('maps an unknown error to a generic INTERNAL_ERROR', () => {
    // Act
    const result = errorResult(new Error('secret detail'), 'req_2');
    // Assess
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('secret detail');
    expect(JSON.parse(result.body!).error.code).toBe('INTERNAL_ERROR');
  });
});
