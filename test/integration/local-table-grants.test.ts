// Locally a handler may touch only the tables its route declares, as its function's grants allow on AWS: the local
// API gateway runs each invocation with its route's tables, side by side in one process.
import type { Server } from 'node:http';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRoutes } from '../../functions/accounts/routes.js';
import { createLocalApi } from '../../functions/adapters/local/api-gateway.js';
import { localHosts } from '../../functions/adapters/local/local-hosts.js';
import { authorizerHandler, authorizerTables } from '../../functions/routes.js';
import { type TestApi, type TestUser, startTestPlatform, uniqueName } from '../support/platform.js';

const rootDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

let api: TestApi;
let undeclared: Server;
let undeclaredUrl: string;
let user: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  user = await api.givenUser();
  // The same handlers behind routes that leave out a table they touch: getMe reads users, updateMe claims usernames.
  undeclared = await createLocalApi({
    rootDir,
    authorizerHandler,
    authorizerTables,
    hosts: localHosts({ bindHost: '127.0.0.1' }),
    routes: [
      { ...accountRoutes.getMe, tables: {} },
      { ...accountRoutes.updateMe, tables: { users: 'write' } },
    ],
  });
  await new Promise<void>((listening) => undeclared.listen(0, '127.0.0.1', () => listening()));
  undeclaredUrl = `http://127.0.0.1:${(undeclared.address() as { port: number }).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((closed) => undeclared?.close(closed));
  await api?.stop();
});

const callUndeclared = async (method: string, body?: unknown) => {
  const response = await fetch(`${undeclaredUrl}/api/sdk/v1/me`, {
    method,
    headers: { 'x-api-key': user.apiKey, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};

describe('local table grants', () => {
  it('fails a read of a table the route does not declare, while the same handler with its declared tables answers at the same time', async () => {
    // Act: both invocations in flight together in this process
    const [refused, declared] = await Promise.all([callUndeclared('GET'), api.as(user.apiKey).get('/api/sdk/v1/me')]);
    // Assess
    expect(declared.status).toBe(200);
    expect(declared.body.data.username).toBe(user.username);
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' } });
  });

  it('fails a write that needs an undeclared table and changes nothing', async () => {
    // Prepare
    const wanted = uniqueName('renamed');
    // Act
    const refused = await callUndeclared('PATCH', { username: wanted });
    const after = await api.as(user.apiKey).get('/api/sdk/v1/me');
    const claim = await api.as(user.apiKey).patch('/api/sdk/v1/me', { username: wanted });
    // Assess: the name was neither given to the user nor claimed, so the declared route can take it
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' } });
    expect(after.body.data.username).toBe(user.username);
    expect(claim.status).toBe(200);
    expect(claim.body.data.username).toBe(wanted);
  });
});
