import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, startTestPlatform, uniqueName } from '../support/platform.js';

const wallet = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
let api: TestApi;

beforeAll(async () => {
  api = await startTestPlatform();
});
afterAll(() => api.stop());

const adminPost = (body: unknown, adminKey = api.platform.adminKey) =>
  api.request('POST', '/api/admin/v1/users', { body, headers: { 'x-admin-key': adminKey } });

describe('accounts: admin creates users', () => {
  it('creates a user whose key answers GET /me', async () => {
    // Prepare
    const username = uniqueName();
    // Act
    const created = await adminPost({ username, walletAddress: wallet });
    const me = await api.as(created.body.data.apiKey).get('/api/sdk/v1/me');
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ userId: expect.stringMatching(/^usr_/), username, apiKey: expect.stringMatching(/^amp_/) });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ userId: created.body.data.userId, username, walletAddress: wallet, monthlyBudgetUsd: 100 });
  });

  it('refuses a missing or wrong admin key and creates nothing', async () => {
    // Prepare
    const username = uniqueName();
    // Act
    const missing = await api.request('POST', '/api/admin/v1/users', { body: { username } });
    const wrong = await adminPost({ username }, 'adm_wrong');
    const afterwards = await adminPost({ username });
    // Assess
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    expect(wrong.status).toBe(401);
    expect(afterwards.status).toBe(201);
  });

  it('refuses a taken username with 409 and keeps the first owner', async () => {
    // Prepare
    const username = uniqueName();
    const first = await adminPost({ username });
    // Act
    const second = await adminPost({ username: username.toUpperCase() });
    // Assess
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'username' } });
    expect((await api.as(first.body.data.apiKey).get('/api/sdk/v1/me')).body.data.username).toBe(username);
  });

  it('refuses an invalid wallet address with the field and value, and creates nothing', async () => {
    // Prepare
    const username = uniqueName();
    // Act
    const refused = await adminPost({ username, walletAddress: 'not-a-wallet-0OIl' });
    const retried = await adminPost({ username });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'walletAddress', value: 'not-a-wallet-0OIl' } });
    expect(retried.status).toBe(201);
  });
});

describe('accounts: authentication', () => {
  it('accepts the key as X-API-Key and as Authorization: Bearer', async () => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const viaHeader = await api.request('GET', '/api/sdk/v1/me', { headers: { 'x-api-key': user.apiKey } });
    const viaBearer = await api.request('GET', '/api/sdk/v1/me', { headers: { authorization: `Bearer ${user.apiKey}` } });
    // Assess
    expect(viaHeader.status).toBe(200);
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body.data.userId).toBe(user.userId);
  });

  it.each([
    ['no key', {}],
    ['an unknown key', { 'x-api-key': 'amp_unknown' }],
    ['a malformed bearer header', { authorization: 'Bearer' }],
  ])('answers 401 in the envelope for %s', async (_label, headers) => {
    // Act
    const response = await api.request('GET', '/api/sdk/v1/me', { headers });
    // Assess
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it('puts the rate-limit headers on every authenticated response', async () => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const first = await api.as(user.apiKey).get('/api/sdk/v1/me');
    const second = await api.as(user.apiKey).get('/api/sdk/v1/keys');
    // Assess
    expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(999);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(998);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });
});

describe('accounts: PATCH /me', () => {
  it('changes username, wallet address and monthly budget', async () => {
    // Prepare
    const user = await api.givenUser();
    const username = uniqueName('renamed');
    // Act
    const patched = await api.as(user.apiKey).patch('/api/sdk/v1/me', { username, walletAddress: wallet, monthlyBudgetUsd: 25.5 });
    const me = await api.as(user.apiKey).get('/api/sdk/v1/me');
    // Assess
    expect(patched.status).toBe(200);
    expect(me.body.data).toMatchObject({ username, walletAddress: wallet, monthlyBudgetUsd: 25.5 });
    expect(me.body.data.updatedAt > me.body.data.createdAt).toBe(true);
  });

  it('frees the old username when renamed', async () => {
    // Prepare
    const user = await api.givenUser();
    await api.as(user.apiKey).patch('/api/sdk/v1/me', { username: uniqueName('moved') });
    // Act
    const reuse = await adminPost({ username: user.username });
    // Assess
    expect(reuse.status).toBe(201);
  });

  it.each([
    ['an invalid wallet', { walletAddress: 'xyz' }, 'walletAddress'],
    ['a negative budget', { monthlyBudgetUsd: -1 }, 'monthlyBudgetUsd'],
    ['a budget given as text', { monthlyBudgetUsd: '10' }, 'monthlyBudgetUsd'],
    ['an unknown field', { plan: 'gold' }, 'plan'],
    ['an empty body', {}, 'body'],
  ])('refuses %s and changes nothing', async (_label, body, field) => {
    // Prepare
    const user = await api.givenUser();
    const before = (await api.as(user.apiKey).get('/api/sdk/v1/me')).body.data;
    // Act
    const response = await api.as(user.apiKey).patch('/api/sdk/v1/me', body);
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect((await api.as(user.apiKey).get('/api/sdk/v1/me')).body.data).toEqual(before);
  });

  it("refuses another user's username with 409", async () => {
    // Prepare
    const [alice, bob] = await Promise.all([api.givenUser(), api.givenUser()]);
    // Act
    const response = await api.as(bob.apiKey).patch('/api/sdk/v1/me', { username: alice.username });
    // Assess
    expect(response.status).toBe(409);
    expect((await api.as(bob.apiKey).get('/api/sdk/v1/me')).body.data.username).toBe(bob.username);
  });
});

describe('accounts: API keys', () => {
  it('issues a key once and never lists the secret', async () => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const created = await api.as(user.apiKey).post('/api/sdk/v1/keys', { name: 'ci', scopes: ['scripts:execute'] });
    const listed = await api.as(user.apiKey).get('/api/sdk/v1/keys');
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ keyId: expect.stringMatching(/^key_/), apiKey: expect.stringMatching(/^amp_/), scopes: ['scripts:execute'] });
    expect(listed.body.data.total).toBe(2);
    expect(listed.text).not.toContain(created.body.data.apiKey);
    expect(listed.text).not.toContain(user.apiKey);
    expect(listed.body.data.keys.map((key: { name: string }) => key.name).sort()).toEqual(['ci', 'default']);
  });

  it('defaults a new key to scope *', async () => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const created = await api.as(user.apiKey).post('/api/sdk/v1/keys', { name: 'all' });
    // Assess
    expect(created.body.data.scopes).toEqual(['*']);
  });

  it('answers 403 when the key lacks the scope of the route', async () => {
    // Prepare
    const user = await api.givenUser();
    const narrow = (await api.as(user.apiKey).post('/api/sdk/v1/keys', { name: 'narrow', scopes: ['scripts:execute'] })).body.data.apiKey;
    // Act
    const listing = await api.as(narrow).get('/api/sdk/v1/keys');
    const patch = await api.as(narrow).patch('/api/sdk/v1/me', { monthlyBudgetUsd: 1 });
    const me = await api.as(user.apiKey).get('/api/sdk/v1/me');
    // Assess
    expect(listing.status).toBe(403);
    expect(listing.body.error.code).toBe('FORBIDDEN');
    expect(patch.status).toBe(403);
    expect(me.body.data.monthlyBudgetUsd).toBe(100);
  });

  it('refuses to mint a key with scopes the caller does not hold', async () => {
    // Prepare
    const user = await api.givenUser();
    const manager = (await api.as(user.apiKey).post('/api/sdk/v1/keys', { name: 'manager', scopes: ['keys:manage'] })).body.data.apiKey;
    // Act
    const escalation = await api.as(manager).post('/api/sdk/v1/keys', { name: 'root', scopes: ['*'] });
    // Assess
    expect(escalation.status).toBe(403);
    expect((await api.as(user.apiKey).get('/api/sdk/v1/keys')).body.data.total).toBe(2);
  });

  it.each([
    ['an unknown scope', { name: 'x', scopes: ['everything'] }, 'scopes.0'],
    ['a missing name', { scopes: ['*'] }, 'name'],
    ['scopes that are not a list', { name: 'x', scopes: '*' }, 'scopes'],
  ])('refuses %s and issues nothing', async (_label, body, field) => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const response = await api.as(user.apiKey).post('/api/sdk/v1/keys', body);
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe(field);
    expect((await api.as(user.apiKey).get('/api/sdk/v1/keys')).body.data.total).toBe(1);
  });

  it('revokes a key: it stops working at once, and revoking again is a conflict', async () => {
    // Prepare
    const user = await api.givenUser();
    const extra = (await api.as(user.apiKey).post('/api/sdk/v1/keys', { name: 'temp' })).body.data;
    expect((await api.as(extra.apiKey).get('/api/sdk/v1/me')).status).toBe(200);
    // Act
    const revoked = await api.as(user.apiKey).delete(`/api/sdk/v1/keys/${extra.keyId}`);
    const again = await api.as(user.apiKey).delete(`/api/sdk/v1/keys/${extra.keyId}`);
    const useAfter = await api.as(extra.apiKey).get('/api/sdk/v1/me');
    // Assess
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, message: expect.stringContaining(extra.keyId) });
    expect(again.status).toBe(409);
    expect(useAfter.status).toBe(401);
    expect(useAfter.body.error.message).toMatch(/revoked/);
    const listed = (await api.as(user.apiKey).get('/api/sdk/v1/keys')).body.data.keys;
    expect(listed.find((key: { keyId: string }) => key.keyId === extra.keyId).revokedAt).toEqual(expect.any(String));
  });

  it('refuses a key revoked while lookups of it were in flight, on every request after the revocation', async () => {
    // Prepare
    const user = await api.givenUser();
    const extra = (await api.as(user.apiKey).post('/api/sdk/v1/keys', { name: 'raced' })).body.data;
    // Act: the key is not cached yet, so these requests read it from the store while it is revoked
    const during = Array.from({ length: 8 }, () => api.as(extra.apiKey).get('/api/sdk/v1/me'));
    const revoked = await api.as(user.apiKey).delete(`/api/sdk/v1/keys/${extra.keyId}`);
    await Promise.all(during);
    const after = await Promise.all(Array.from({ length: 4 }, () => api.as(extra.apiKey).get('/api/sdk/v1/me')));
    // Assess
    expect(revoked.status).toBe(200);
    expect(after.map((response) => [response.status, response.body.error?.code])).toEqual(Array.from({ length: 4 }, () => [401, 'UNAUTHORIZED']));
  });

  it("cannot see or revoke another user's key", async () => {
    // Prepare
    const [alice, mallory] = await Promise.all([api.givenUser(), api.givenUser()]);
    const aliceKeyId = (await api.as(alice.apiKey).get('/api/sdk/v1/keys')).body.data.keys[0].keyId;
    // Act
    const attempt = await api.as(mallory.apiKey).delete(`/api/sdk/v1/keys/${aliceKeyId}`);
    const malloryList = await api.as(mallory.apiKey).get('/api/sdk/v1/keys');
    // Assess
    expect(attempt.status).toBe(404);
    expect(malloryList.text).not.toContain(aliceKeyId);
    expect((await api.as(alice.apiKey).get('/api/sdk/v1/me')).status).toBe(200);
  });

  it('answers NOT_FOUND with the looked-up keyId for a key id of any shape that names nothing, and revokes nothing', async () => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const attempt = await api.as(user.apiKey).delete('/api/sdk/v1/keys/no-such-key');
    const stillWorks = await api.as(user.apiKey).get('/api/sdk/v1/keys');
    // Assess
    expect(attempt.status).toBe(404);
    expect(attempt.body.error).toMatchObject({ code: 'NOT_FOUND', details: { keyId: 'no-such-key' } });
    expect(stillWorks.body.data.keys.map((key: { revokedAt: string | null }) => key.revokedAt)).toEqual([null]);
  });

  it('pages the key list and refuses a page larger than 100', async () => {
    // Prepare
    const user = await api.givenUser();
    await api.as(user.apiKey).post('/api/sdk/v1/keys', { name: 'second' });
    // Act
    const page = await api.as(user.apiKey).get('/api/sdk/v1/keys?limit=1&offset=1');
    const tooLarge = await api.as(user.apiKey).get('/api/sdk/v1/keys?limit=101');
    // Assess
    expect(page.body.data).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.body.data.keys).toHaveLength(1);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.details).toMatchObject({ field: 'limit', value: '101' });
  });
});
