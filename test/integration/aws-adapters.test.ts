import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { dynamoRateLimiter } from '../../functions/adapters/aws/rate-limiter.js';
import { languageModel } from '../../functions/adapters/llm.js';
import { parsePlatformSettings } from '../../functions/app/platform.js';
import { startLlmServer } from '../support/llm-server.js';
import { checkAdminKey, resetAdminKeyCache } from '../../functions/platform/admin-key.js';
import { type Moto, startMoto } from '../support/moto.js';

let moto: Moto;

beforeAll(async () => {
  moto = await startMoto();
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});
afterAll(() => moto.stop());

describe('aws adapter: admin key from Secrets Manager', () => {
  it('accepts the key stored in the secret and refuses any other', async () => {
    // Prepare
    const secrets = new SecretsManagerClient(moto.clientConfig);
    const { ARN } = await secrets.send(new CreateSecretCommand({ Name: `admin-${Date.now()}`, SecretString: 'adm_from_secret' }));
    delete process.env.ADMIN_API_KEY;
    process.env.ADMIN_KEY_SECRET_ARN = ARN;
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = moto.endpoint;
    process.env.AWS_ACCESS_KEY_ID = 'testing';
    process.env.AWS_SECRET_ACCESS_KEY = 'testing';
    process.env.AWS_REGION = 'us-east-1';
    resetAdminKeyCache();
    // Act
    const [accepted, refused] = await Promise.allSettled([checkAdminKey('adm_from_secret'), checkAdminKey('adm_guess')]);
    // Assess
    expect(accepted).toEqual({ status: 'fulfilled', value: undefined });
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'UNAUTHORIZED' } });
  });
});

describe('aws adapter: DynamoDB rate limiter', () => {
  it('counts concurrent hits exactly and refuses past the limit', async () => {
    // Prepare
    const bucket = `test-${Date.now()}-${Math.random()}`;
    const now = Date.UTC(2026, 0, 1, 12, 0, 30);
    // Act
    const windows = await Promise.all(Array.from({ length: 12 }, () => dynamoRateLimiter.hit(bucket, 10, 60, now)));
    const nextWindow = await dynamoRateLimiter.hit(bucket, 10, 60, now + 60_000);
    // Assess
    expect(windows.filter((window) => window.allowed)).toHaveLength(10);
    expect(windows.map((window) => window.remaining).sort((a, b) => a - b)).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(windows[0]!.resetAt).toBe(Date.UTC(2026, 0, 1, 12, 1, 0) / 1000);
    expect(nextWindow).toMatchObject({ allowed: true, remaining: 9 });
  });
});

describe('aws adapter: holds of the DynamoDB rate limiter', () => {
  it('grants at most the limit at once, a released or lapsed hold frees its place', async () => {
    // Prepare
    const bucket = `holds-${Date.now()}-${Math.random()}`;
    // Act
    const taken = await Promise.all(Array.from({ length: 3 }, () => dynamoRateLimiter.hold(bucket, 2, 60_000)));
    const granted = taken.filter((hold) => hold !== undefined);
    await granted[0]!.release();
    const afterRelease = await dynamoRateLimiter.hold(bucket, 2, 60_000);
    const whileFull = await dynamoRateLimiter.hold(bucket, 2, 60_000);
    const otherBucket = await dynamoRateLimiter.hold(`${bucket}-other`, 2, -1);
    const afterLapse = await dynamoRateLimiter.hold(`${bucket}-other`, 1, 60_000);
    // Assess
    expect(granted).toHaveLength(2);
    expect(afterRelease).toBeDefined();
    expect(whileFull).toBeUndefined();
    expect(otherBucket).toBeDefined();
    expect(afterLapse).toBeDefined();
  });
});

describe('aws adapter: the language model\u2019s API key from Secrets Manager', () => {
  it('sends the key stored in the secret named by LLM_API_KEY_SECRET_ARN as the bearer token', async () => {
    // Prepare
    const llm = await startLlmServer();
    const { ARN } = await new SecretsManagerClient(moto.clientConfig).send(
      new CreateSecretCommand({ Name: `llm-${Date.now()}`, SecretString: 'sk-from-secret' }),
    );
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: moto.endpoint,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_REGION: 'us-east-1',
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'test-model',
      LLM_API_KEY_SECRET_ARN: ARN,
    });
    delete process.env.LLM_API_KEY;
    llm.script([() => ({ content: 'done' })]);
    // Act
    const turn = await languageModel(parsePlatformSettings(process.env).flows.llm)!.complete({
      messages: [{ role: 'user', content: 'hello' }],
      tools: [],
      timeoutMs: 5000,
    });
    // Assess
    expect(turn.content).toBe('done');
    expect(llm.requests[0]).toMatchObject({ model: 'test-model', authorization: 'Bearer sk-from-secret' });
    await llm.close();
  });
});
