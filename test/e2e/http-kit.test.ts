import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.js';
import { type TestApi, startTestPlatform, uniqueName } from '../support/platform.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestPlatform();
});
afterAll(() => api.stop());

describe('platform: public routes', () => {
  it('answers health without a key', async () => {
    // Act
    const response = await api.request('GET', '/api/sdk/v1/health');
    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { status: 'ok', version: expect.any(String), time: expect.any(String) } });
    expect(response.headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
  });

  it('serves a valid OpenAPI 3 document with every route of the table', async () => {
    // Act
    const response = await api.request('GET', '/api/sdk/v1/openapi.json');
    // Assess
    expect(response.status).toBe(200);
    const document = await SwaggerParser.validate(structuredClone(response.body));
    expect(document).toHaveProperty('openapi', '3.0.3');
    const operations = Object.values(response.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    expect(operations.sort()).toEqual(routes.map((route) => route.operation).sort());
    expect(response.body.servers[0].url).toBe(api.baseUrl);
  });
});

describe('platform: bad requests get the envelope and change nothing', () => {
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    // Act
    const response = await api.request('GET', '/api/sdk/v1/nothing-here');
    // Assess
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('answers a wrong method with 405 and the methods the path allows', async () => {
    // Act
    const response = await api.request('PUT', '/api/sdk/v1/me');
    // Assess
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PATCH');
    expect(response.body.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', details: { allowed: ['GET', 'PATCH'] } });
  });

  it('refuses malformed JSON with VALIDATION_ERROR on field body', async () => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const response = await api.request('PATCH', '/api/sdk/v1/me', {
      rawBody: '{"monthlyBudgetUsd": 5',
      headers: { 'x-api-key': user.apiKey, 'content-type': 'application/json' },
    });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
    expect((await api.as(user.apiKey).get('/api/sdk/v1/me')).body.data.monthlyBudgetUsd).toBe(100);
  });

  it('refuses a JSON body that is not an object', async () => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const response = await api.request('POST', '/api/sdk/v1/keys', { rawBody: '["a"]', headers: { 'x-api-key': user.apiKey } });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('body');
  });

  it('refuses a body over 6 MB with 413 and writes nothing', async () => {
    // Prepare
    const username = uniqueName();
    const huge = JSON.stringify({ username, padding: 'x'.repeat(6 * 1024 * 1024) });
    // Act
    const response = await api.request('POST', '/api/admin/v1/users', { rawBody: huge, headers: { 'x-admin-key': api.platform.adminKey } });
    // Assess
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
    expect((await api.request('POST', '/api/admin/v1/users', { body: { username }, headers: { 'x-admin-key': api.platform.adminKey } })).status).toBe(201);
  });
});

describe('platform: rate limit', () => {
  it('answers the 1001st request of a minute with 429 RATE_LIMITED and the three headers', async () => {
    // Prepare: stay inside one fixed window so the count is exact.
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 15) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 100));
    const user = await api.givenUser();
    const statuses: number[] = [];
    // Act
    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(Array.from({ length: 50 }, () => api.as(user.apiKey).get('/api/sdk/v1/me')));
      statuses.push(...responses.map((response) => response.status));
    }
    const limited = await api.as(user.apiKey).get('/api/sdk/v1/me');
    // Assess
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
