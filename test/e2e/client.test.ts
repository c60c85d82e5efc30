// The typed client against the local platform: typed data on success, PlatformError with the envelope's code on a
// refusal, PaymentRequiredError with the offers on a 402.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentRequiredError, PlatformError, UnreachableError, createPlatformClient, unwrap } from '../../clients/typescript/src/index.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenPublishedResource, json, startUpstream } from '../support/resources.js';

let api: TestApi;
let upstream: Upstream;
let user: TestUser;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  user = await api.givenUser();
  upstream.respond((_request, response) => json(response, 200, { forecast: 'sunny' }));
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

describe('client: typed calls', () => {
  it('sends an Idempotency-Key header parameter: a repeated run answers the first run', async () => {
    // Prepare
    const client = createPlatformClient({ baseUrl: api.baseUrl, apiKey: user.apiKey });
    const created = await unwrap(
      client.POST('/api/sdk/v1/scripts/createScript', { body: { name: 'client-once', code: 'async function handler() { return { success: true } }' } }),
    );
    await unwrap(client.POST('/api/sdk/v1/scripts/deployScript', { body: { scriptId: created.id } }));
    const run = () =>
      unwrap(
        client.POST('/api/sdk/v1/scripts/executeScript', { params: { header: { 'Idempotency-Key': `client-${created.id}` } }, body: { scriptId: created.id } }),
      );
    // Act
    const first = await run();
    const repeated = await run();
    // Assess
    expect(repeated.executionId).toBe(first.executionId);
    const history = await unwrap(client.GET('/api/sdk/v1/scripts/{scriptId}/executions', { params: { path: { scriptId: created.id } } }));
    expect(history.executions).toHaveLength(1);
  });

  it('reads the caller, creates a script and runs it with typed data', async () => {
    // Prepare
    const client = createPlatformClient({ baseUrl: `${api.baseUrl}/`, apiKey: user.apiKey });
    // Act
    const me = await unwrap(client.GET('/api/sdk/v1/me'));
    const created = await unwrap(
      client.POST('/api/sdk/v1/scripts/createScript', {
        body: { name: 'client-echo', code: 'async function handler(event) { return { success: true, got: event.data } }' },
      }),
    );
    await unwrap(client.POST('/api/sdk/v1/scripts/deployScript', { body: { scriptId: created.id } }));
    const run = await unwrap(client.POST('/api/sdk/v1/scripts/executeScript', { body: { scriptId: created.id, data: { n: 1 } } }));
    const listed = await unwrap(client.GET('/api/sdk/v1/scripts/{scriptId}', { params: { path: { scriptId: created.id } } }));
    // Assess
    expect(me.userId).toBe(user.userId);
    expect(run).toMatchObject({ status: 'completed', output: { success: true, got: { n: 1 } } });
    expect(listed.id).toBe(created.id);
  });

  it('throws PlatformError with code, status, details and request id on refusals', async () => {
    // Prepare
    const client = createPlatformClient({ baseUrl: api.baseUrl, apiKey: user.apiKey });
    const anonymous = createPlatformClient({ baseUrl: api.baseUrl, apiKey: 'amp_wrong' });
    // Act
    const invalid = await unwrap(client.POST('/api/sdk/v1/scripts/createScript', { body: { name: '', code: 'x' } })).catch((error: unknown) => error);
    const unauthorized = await unwrap(anonymous.GET('/api/sdk/v1/me')).catch((error: unknown) => error);
    // Assess
    expect(invalid).toBeInstanceOf(PlatformError);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'name' }, requestId: expect.any(String) });
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('throws PaymentRequiredError with the offers of a paid route', async () => {
    // Prepare
    const seller = await api.givenUser({ walletAddress: Keypair.generate().publicKey.toBase58() });
    const resourceId = await givenPublishedResource(
      api,
      seller,
      { pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' } },
      { baseUrl: upstream.baseUrl },
    );
    const client = createPlatformClient({ baseUrl: api.baseUrl });
    // Act
    const refused = await unwrap(
      client.GET('/api/x402/resources/{resourceId}/{methodName}', {
        params: { path: { resourceId, methodName: 'getForecast' }, query: { city: 'Oslo' } as never },
      }),
    ).catch((error: unknown) => error);
    // Assess
    expect(refused).toBeInstanceOf(PaymentRequiredError);
    expect((refused as PaymentRequiredError).body.accepts[0]).toMatchObject({ scheme: 'exact', network: 'solana-devnet' });
  });
});

const root = join(import.meta.dirname, '..', '..');

/** The first `ts` block of the typed client's README, importing the client from this checkout. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'clients', 'typescript', 'README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('clients/typescript/README.md has no ts block');
  return block.replace("'./clients/typescript/src/index.js'", JSON.stringify(join(root, 'clients', 'typescript', 'src', 'index.ts')));
}

/** A port nothing listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('client: README example and failures without an answer', () => {
  it("runs the README's example as written against the local platform", async () => {
    // Prepare
    const dir = mkdtempSync(join(root, 'node_modules', '.client-readme-'));
    const file = join(dir, 'example.mts');
    writeFileSync(file, readmeExample());
    // Act
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', file], {
        cwd: root,
        env: { ...process.env, PLATFORM_BASE_URL: api.baseUrl, PLATFORM_API_KEY: user.apiKey },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => resolve({ code, output }));
    }).finally(() => rmSync(dir, { recursive: true, force: true }));
    // Assess
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`deployed version 1 (1.0.0) of echo for ${user.username}`);
    expect(result.output).toMatch(/^exe_\w+ completed$/m);
    expect(result.output).toMatch(/^got 1$/m);
    expect(result.output).toContain('1 run(s)');
    expect(result.output).toMatch(/^404 NOT_FOUND /m);
  }, 120_000);

  it('throws UnreachableError naming the URL and the cause when nothing answers', async () => {
    // Prepare
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const client = createPlatformClient({ baseUrl, apiKey: user.apiKey });
    // Act
    const failure = await unwrap(client.GET('/api/sdk/v1/me')).catch((error: unknown) => error);
    // Assess
    expect(failure).toBeInstanceOf(UnreachableError);
    expect((failure as Error).message).toMatch(new RegExp(`^cannot reach ${baseUrl}: connect ECONNREFUSED `));
  });
});
