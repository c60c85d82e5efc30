// Faults injected at the adapters of a running platform: DynamoDB throttling and failing writes (a middleware on the
// shared client), a script runtime that crashes, an upstream that fails or hangs, a ledger that rejects or times out.
// Each answer is a clear error in the envelope, what is retried is retried, and nothing is left half done.
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAdapters } from '../../functions/adapters/local/adapters.js';
import { createPaymentHeader, selectOffer } from '../../functions/payments/client.js';
import type { SolanaLedger } from '../../functions/payments/ports.js';
import { dynamo } from '../../functions/platform/dynamo.js';
import { installLocalAdapters } from '../../functions/app/platform.js';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenPayer, solanaConnection } from '../support/payments.js';
import { type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
import { givenDeployed, nodeEcho, rest } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let user: TestUser;
let ledgerFault: 'reject' | 'timeout' | undefined;
const tally = { faults: 0, answers: 0, fiveHundreds: [] as string[] };

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  user = await api.givenUser({ walletAddress: Keypair.generate().publicKey.toBase58() });
  upstream.respond((request, response) => json(response, 200, { ok: true, path: request.url }));
  // The bank's ledger, but rejecting or timing out a settlement when the test says so.
  installLocalAdapters({
    ...localAdapters,
    solanaLedger: async () => {
      const real = await localAdapters.solanaLedger();
      const faulty: SolanaLedger = Object.create(real);
      faulty.settle = async (...args) => {
        if (ledgerFault === 'reject') throw Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
        if (ledgerFault === 'timeout') return { status: 'timeout' };
        return real.settle(...args);
      };
      return faulty;
    },
  });
}, 120_000);
afterAll(async () => {
  installLocalAdapters(localAdapters);
  await upstream.close();
  await api.stop();
});

/** Every answer under a fault is counted; a 500 is allowed only where the fault outlasts the SDK's retries. */
function seen(label: string, answer: ApiResponse, expectedInternal = false): ApiResponse {
  tally.answers += 1;
  if (answer.status === 500 && !(expectedInternal && answer.body.error?.code === 'INTERNAL_ERROR'))
    tally.fiveHundreds.push(`${label}: ${answer.text.slice(0, 200)}`);
  return answer;
}

/** Fails the DynamoDB commands for which `shouldFail` says so with `error`, before they reach DynamoDB Local. */
function injectDynamoFault(name: string, error: () => Error, shouldFail: (commandName: string) => boolean) {
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      if (shouldFail(context.commandName ?? '')) {
        tally.faults += 1;
        throw error();
      }
      return next(args);
    },
    { step: 'deserialize', name },
  );
  return () => dynamo().middlewareStack.remove(name);
}

const throttled = () =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ThrottlingException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
const internal = () => Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 500 } });

describe('hardening: injected faults', () => {
  it('retries throttled DynamoDB calls: every request under throttling of one call in two succeeds', async () => {
    // Prepare
    let calls = 0;
    const remove = injectDynamoFault('throttle-every-other', throttled, () => calls++ % 2 === 0);
    // Act
    const answers = await (async () => {
      const created = seen(
        'create under throttling',
        await api.as(user.apiKey).post(rest, { name: 'throttled', description: 'd', runtime: 'nodejs18', code: nodeEcho('t') }),
      );
      const read = seen('read under throttling', await api.as(user.apiKey).get(`${rest}/${created.body.data.id}`));
      const me = seen('me under throttling', await api.as(user.apiKey).get('/api/sdk/v1/me'));
      return [created.status, read.status, me.status];
    })().finally(remove);
    // Assess
    expect(answers).toEqual([201, 200, 200]);
  });

  it('answers a write that DynamoDB keeps failing with INTERNAL_ERROR and leaves no half-created script behind', async () => {
    // Prepare: the script's key is issued (the first transaction), then every transaction fails
    let transactions = 0;
    const liveKeys = async () =>
      (await api.as(user.apiKey).get('/api/sdk/v1/keys?limit=100')).body.data.keys.filter((key: { revokedAt: string | null }) => key.revokedAt === null);
    const before = await liveKeys();
    const scriptsBefore = (await api.as(user.apiKey).get(rest)).body.data;
    const remove = injectDynamoFault('fail-transactions', internal, (commandName) => commandName === 'TransactWriteItemsCommand' && transactions++ >= 1);
    // Act
    const refused = await api
      .as(user.apiKey)
      .post(rest, { name: 'never stored', description: 'd', runtime: 'nodejs18', code: nodeEcho('x') })
      .finally(remove);
    seen('create while transactions fail', refused, true);
    const keysAfter = await liveKeys();
    const scriptsAfter = (await api.as(user.apiKey).get(rest)).body.data;
    const retried = seen(
      'create after recovery',
      await api.as(user.apiKey).post(rest, { name: 'stored', description: 'd', runtime: 'nodejs18', code: nodeEcho('y') }),
    );
    // Assess
    expect(refused.status).toBe(500);
    expect(refused.body.error.code).toBe('INTERNAL_ERROR');
    expect(refused.headers.get('x-request-id')).toBeTruthy();
    expect(scriptsAfter).toEqual(scriptsBefore);
    expect(keysAfter).toEqual(before);
    expect(retried.status).toBe(201);
  });

  it('records a crashing runtime as a failed run with SCRIPT_CRASHED, and the next run works', async () => {
    // Prepare
    const crashing = await givenDeployed(api, user, { code: 'export async function handler() { process.kill(process.pid, "SIGKILL"); }' });
    const healthy = await givenDeployed(api, user);
    // Act
    const crashed = seen('crashing run', await api.as(user.apiKey).post(`${rest}/${crashing.id}/execute`, { data: {} }));
    const next = seen('run after a crash', await api.as(user.apiKey).post(`${rest}/${healthy.id}/execute`, { data: {} }));
    const history = (await api.as(user.apiKey).get(`/api/sdk/v1/executions?scriptId=${crashing.id}`)).body.data;
    // Assess
    expect(JSON.stringify(crashed.body)).toContain('SCRIPT_CRASHED');
    expect(next.status).toBe(200);
    expect(JSON.stringify(history)).toContain('failed');
  });

  it('answers an upstream that fails with UPSTREAM_ERROR and one that hangs with TIMEOUT, and records both calls as failed', async () => {
    // Prepare
    const resourceId = await givenPublishedResource(api, user, {}, { baseUrl: upstream.baseUrl, timeoutSeconds: 1 });
    const { installationId } = await givenInstalled(api, user, resourceId);
    const call = async (label: string) =>
      seen(label, await api.as(user.apiKey).post(`/api/sdk/v1/resources/${resourceId}/call`, { method: 'getForecast', params: { city: 'Oslo' } }));
    // Act
    upstream.respond(() => undefined);
    const hung = await call('hanging upstream');
    upstream.respond((_request, response) => response.destroy());
    const failed = await call('failing upstream');
    upstream.respond((request, response) => json(response, 200, { ok: true, path: request.url }));
    const usage = (await api.as(user.apiKey).get(`/api/sdk/v1/resources/installations/${installationId}/usage`)).body.data;
    // Assess
    expect([hung.status, hung.body.error?.code]).toEqual([504, 'TIMEOUT']);
    expect([failed.status, failed.body.error?.code]).toEqual([502, 'UPSTREAM_ERROR']);
    expect(usage.recentCalls.slice(0, 2)).toEqual([expect.objectContaining({ success: false, cost: 0 }), expect.objectContaining({ success: false, cost: 0 })]);
  });

  it('refuses a paid call when the ledger rejects or times out: SETTLEMENT_FAILED, the upstream not called, nothing settled', async () => {
    // Prepare
    const resourceId = await givenPublishedResource(
      api,
      user,
      { pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' } },
      { baseUrl: `${upstream.baseUrl}/v1` },
    );
    const paidPath = `/api/x402/resources/${resourceId}/getForecast?city=Oslo`;
    const offer = selectOffer({ accepts: (await api.request('GET', paidPath)).body.accepts }, 'USDC');
    const connection = solanaConnection(api);
    const pay = async (label: string) => {
      const payer = await givenPayer(api);
      const header = createPaymentHeader(offer, payer, (await connection.getLatestBlockhash()).blockhash);
      return seen(label, await api.request('GET', paidPath, { headers: { 'X-PAYMENT': header } }));
    };
    const upstreamCalls = upstream.received.length;
    // Act
    ledgerFault = 'reject';
    const rejected = await pay('ledger rejects');
    ledgerFault = 'timeout';
    const timedOut = await pay('ledger times out');
    ledgerFault = undefined;
    const servedDuringFaults = upstream.received.length - upstreamCalls;
    const payments = (await api.as(user.apiKey).get('/api/sdk/v1/payments')).body.data;
    const healthy = await pay('ledger healthy');
    // Assess
    expect([rejected.status, rejected.body.error?.code ?? rejected.body.errorCode ?? rejected.text]).toEqual([402, expect.stringMatching(/SETTLEMENT_FAILED/)]);
    expect([timedOut.status, timedOut.text]).toEqual([402, expect.stringMatching(/SETTLEMENT_FAILED/)]);
    expect(servedDuringFaults).toBe(0);
    expect(JSON.stringify(payments)).not.toContain('"settled"');
    expect(healthy.status).toBe(200);
  });

  afterAll(() => {
    console.log(`injected faults: ${tally.faults} DynamoDB faults, ${tally.answers} answers under faults; unexpected 500s ${tally.fiveHundreds.length}`);
    expect(tally.fiveHundreds).toEqual([]);
  });
});
