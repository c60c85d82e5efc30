import { beforeAll, describe, expect, inject, it } from 'vitest';
import { handler as authorize } from '../../functions/app/accounts/handlers/authorize-api-key.js';
import { handler as createUser } from '../../functions/app/accounts/handlers/create-user.js';
import { handler as deleteKey } from '../../functions/app/accounts/handlers/delete-key.js';
import { handler as getMe } from '../../functions/app/accounts/handlers/get-me.js';
import { accountService } from '../../functions/app/accounts/wiring.js';
import { resetAdminKeyCache } from '../../functions/platform/admin-key.js';
import { httpEvent, lambdaContext } from '../support/lambda-event.js';
import { uniqueName } from '../support/platform.js';

const adminKey = 'adm_integration';

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  process.env.ADMIN_API_KEY = adminKey;
  resetAdminKeyCache();
});

const newUser = (username: string) =>
  createUser(httpEvent({ method: 'POST', path: '/api/admin/v1/users', body: { username }, headers: { 'x-admin-key': adminKey } }), lambdaContext);

/** A request authorizer event as API Gateway sends it for GET /api/sdk/v1/me. */
const authorizerEvent = (headers: Record<string, string>) =>
  ({
    headers,
    rawPath: '/api/sdk/v1/me',
    requestContext: { domainName: 'api.example.test', http: { method: 'GET', path: '/api/sdk/v1/me' } },
  }) as unknown as Parameters<typeof authorize>[0];

describe('accounts handlers against DynamoDB Local', () => {
  it('lets exactly one of ten concurrent creations claim a username', async () => {
    // Prepare
    const username = uniqueName();
    // Act
    const results = await Promise.all(Array.from({ length: 10 }, () => newUser(username)));
    // Assess
    expect(results.filter((result) => result.statusCode === 201)).toHaveLength(1);
    expect(results.filter((result) => result.statusCode === 409)).toHaveLength(9);
  });

  it('resolves a key through the authorizer into the identity the handler reads', async () => {
    // Prepare
    const created = JSON.parse((await newUser(uniqueName())).body!).data;
    // Act
    const verdict = await authorize(authorizerEvent({ authorization: `bearer ${created.apiKey}` }));
    const me = await getMe(httpEvent({ method: 'GET', path: '/api/sdk/v1/me', identity: verdict.context as never }), lambdaContext);
    // Assess
    expect(verdict).toEqual({ isAuthorized: true, context: { userId: created.userId, keyId: expect.stringMatching(/^key_/), scopes: '*' } });
    expect(me.statusCode).toBe(200);
    expect(JSON.parse(me.body!).data.userId).toBe(created.userId);
  });

  it('tells the handler why there is no identity, and the handler answers 401', async () => {
    // Act
    const missing = await authorize(authorizerEvent({}));
    const unknown = await authorize(authorizerEvent({ 'x-api-key': 'amp_nobody' }));
    const me = await getMe(httpEvent({ method: 'GET', path: '/api/sdk/v1/me' }), lambdaContext);
    // Assess
    expect(missing.context).toEqual({ reason: 'missing' });
    expect(unknown.context).toEqual({ reason: 'unknown' });
    expect(me.statusCode).toBe(401);
  });

  it('forgets a cached key as soon as it is revoked', async () => {
    // Prepare
    const created = JSON.parse((await newUser(uniqueName())).body!).data;
    const identity = await accountService().resolveKey(created.apiKey);
    if (!('keyId' in identity)) throw new Error('key did not resolve');
    // Act
    const revoked = await deleteKey(
      httpEvent({ method: 'DELETE', path: `/api/sdk/v1/keys/${identity.keyId}`, pathParameters: { keyId: identity.keyId }, identity }),
      lambdaContext,
    );
    // Assess
    expect(revoked.statusCode).toBe(200);
    expect(await accountService().resolveKey(created.apiKey)).toEqual({ reason: 'revoked' });
  });
});
