// Per-request log keys under concurrency: many requests on different routes at once, and every line the platform logs
// for one of them (its access line included) names that request's own operation, path and requestId.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../functions/platform/logger.js';
import { routes } from '../../functions/routes.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

interface LogLine {
  message?: string;
  requestId?: string;
  operation?: string;
  path?: string;
}

let api: TestApi;
let user: TestUser;
const lines: LogLine[] = [];
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  // The tests log at ERROR; the access lines are INFO.
  logger.setLogLevel('DEBUG');
  // Keep every JSON line the logger writes (it writes to stdout), passing all output through.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    for (const text of String(chunk).split('\n')) {
      if (text.startsWith('{')) lines.push(JSON.parse(text) as LogLine);
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  api = await startTestPlatform();
  user = await api.givenUser();
});
afterAll(async () => {
  process.stdout.write = write;
  logger.setLogLevel('ERROR');
  await api?.stop();
});

describe('log context per request', () => {
  it('gives every line of concurrent requests on different routes its own operation, path and requestId', async () => {
    // Prepare: list routes of the caller's own objects, each asked several times, all at once
    const listRoutes = routes.filter((route) => route.method === 'GET' && route.auth === 'apiKey' && !route.path.includes('{'));
    const calls = Array.from({ length: 4 }, () => listRoutes).flat();
    // Act
    const answers = await Promise.all(
      calls.map(async (route) => {
        const response = await api.as(user.apiKey).get(route.path);
        return { route, status: response.status, requestId: response.headers.get('x-request-id')! };
      }),
    );
    // Assess
    expect(listRoutes.length).toBeGreaterThan(10);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const expected = new Map(answers.map((answer) => [answer.requestId, { operation: answer.route.operation, path: answer.route.path }]));
    expect(expected.size).toBe(calls.length);
    const ours = lines.filter((line) => line.requestId && expected.has(line.requestId));
    const accessLines = ours.filter((line) => line.message === 'request');
    expect(accessLines).toHaveLength(calls.length);
    for (const line of ours)
      expect({ requestId: line.requestId, operation: line.operation, path: line.path }).toEqual({
        requestId: line.requestId,
        ...expected.get(line.requestId!),
      });
  });
});
