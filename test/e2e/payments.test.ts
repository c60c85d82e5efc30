import { Keypair } from '@solana/web3.js';
import type { Connection } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSolanaBank } from '../../functions/adapters/local/solana-bank.js';
import { createPaymentHeader, decodePaymentResponse, paymentInstructions, selectOffer } from '../../functions/payments/client.js';
import { splitAmount } from '../../functions/payments/networks.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { fund, givenPayer, headerWith, lamportBalance, rewriteHeader, solanaConnection, tokenBalance, tokenTransfer } from '../support/payments.js';
import { type Upstream, givenPublishedResource, json, startUpstream } from '../support/resources.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;
let ownerWallet: string;
let resourceId: string;
let connection: Connection;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform({ ownTables: true }), startUpstream()]);
  ownerWallet = Keypair.generate().publicKey.toBase58();
  owner = await api.givenUser({ walletAddress: ownerWallet });
  upstream.respond((request, response) => json(response, 200, { forecast: 'sunny', path: request.url }));
  resourceId = await givenPublishedResource(
    api,
    owner,
    { pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' } },
    { baseUrl: `${upstream.baseUrl}/v1` },
  );
  connection = solanaConnection(api);
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

const paidPath = () => `/api/x402/resources/${resourceId}/getForecast?city=Oslo&days=2`;
const ask = (headers: Record<string, string> = {}, path = paidPath()) => api.request('GET', path, { headers });
const offersNow = async (): Promise<PaymentRequirement[]> => (await ask()).body.accepts;
const blockhash = async () => (await connection.getLatestBlockhash()).blockhash;

/** Owner, platform and payer USDC balances, to see that a refusal moved nothing. */
async function usdcBalances(offer: PaymentRequirement, payer: Keypair) {
  const [agentOwner, platform, paying] = await Promise.all(
    [ownerWallet, offer.extra.serverWalletAddress, payer.publicKey.toBase58()].map((who) => tokenBalance(connection, offer.asset, who)),
  );
  return { agentOwner, platform, payer: paying };
}

const paymentsOfOwner = async () =>
  (await api.as(owner.apiKey).get(`/api/sdk/v1/payments?resourceId=${resourceId}&limit=100`)).body.data.payments as Array<Record<string, any>>;

describe('payments: HTTP 402 requirements', () => {
  it("answers a call without payment with 402: the payout offer first, then the interface's split in USDC, and in SOL once the owner's wallet can hold it", async () => {
    // Act
    const response = await ask();
    await fund(api, ownerWallet, 'SOL', 0.01);
    const withSol = await ask();
    // Assess
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({ x402Version: 1, error: null });
    const [payout, usdc] = response.body.accepts;
    expect(response.body.accepts).toHaveLength(2);
    expect(payout).toMatchObject({
      scheme: 'exact',
      maxAmountRequired: '10000',
      payTo: usdc.extra.serverWalletAddress,
      asset: usdc.asset,
      extra: { settlement: 'payout', feePayer: expect.any(String), agentOwner: { userId: owner.userId }, serverFeePercentage: 10 },
    });
    const sol = withSol.body.accepts[2];
    expect(usdc).toEqual({
      scheme: 'exact',
      network: 'solana-devnet',
      maxAmountRequired: '10000',
      resource: `${api.baseUrl}/api/x402/resources/${resourceId}/getForecast`,
      description: expect.any(String),
      mimeType: 'application/json',
      payTo: ownerWallet,
      maxTimeoutSeconds: 25,
      asset: expect.any(String),
      extra: {
        agentOwner: { username: expect.any(String), userId: owner.userId, walletAddress: ownerWallet },
        serverFeePercentage: 10,
        serverWalletAddress: expect.any(String),
        decimals: 6,
        symbol: 'USDC',
        settlement: 'split',
      },
    });
    expect(sol).toMatchObject({ asset: 'So11111111111111111111111111111111111111112', maxAmountRequired: '66667', extra: { symbol: 'SOL' } });
    const v2 = JSON.parse(Buffer.from(response.headers.get('payment-required')!, 'base64').toString('utf8'));
    expect(v2).toMatchObject({
      x402Version: 2,
      resource: { url: usdc.resource },
      accepts: [
        { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', amount: '10000', payTo: payout.payTo },
        { amount: '10000', payTo: ownerWallet },
      ],
    });
  });

  it('refuses to sell a resource whose owner has no wallet, and hides unpublished and unknown resources', async () => {
    // Prepare
    const walletless = await api.givenUser();
    const unsold = await givenPublishedResource(api, walletless, {}, { baseUrl: `${upstream.baseUrl}/v1` });
    const draft = (
      await api.as(owner.apiKey).post('/api/sdk/v1/resources', {
        name: 'draft',
        description: 'd',
        resourceType: 'api',
        endpoint: { baseUrl: upstream.baseUrl, authentication: 'none', methods: [{ name: 'm', path: '/' }] },
      })
    ).body.data.id;
    // Act
    const noWallet = await ask({}, `/api/x402/resources/${unsold}/getForecast`);
    const hidden = await ask({}, `/api/x402/resources/${draft}/m`);
    const unknownId = await ask({}, '/api/x402/resources/res%20x/m');
    // Assess
    expect(noWallet.status).toBe(409);
    expect(noWallet.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'owner_without_wallet' } });
    expect(hidden.status).toBe(404);
    expect(unknownId.status).toBe(404);
    expect(unknownId.body.error).toMatchObject({ code: 'NOT_FOUND', details: { resourceId: 'res x' } });
  });
});

describe('payments: settlement of a paid call', () => {
  it('serves a correct USDC split once, moves balances by exactly the split and records the payment and revenue', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const offer = selectOffer({ accepts: await offersNow() }, 'USDC');
    const before = await usdcBalances(offer, payer);
    const calls = upstream.received.length;
    // Act
    const paid = await ask({ 'X-PAYMENT': createPaymentHeader(offer, payer, await blockhash()) });
    // Assess
    expect(paid.status).toBe(200);
    expect(paid.body).toEqual({ forecast: 'sunny', path: '/v1/forecast/Oslo?days=2' });
    const proof = decodePaymentResponse(paid.headers.get('x-payment-response')!);
    expect(proof).toEqual({
      success: true,
      transaction: expect.any(String),
      blockHeight: expect.any(Number),
      network: 'solana-devnet',
      payer: payer.publicKey.toBase58(),
    });
    expect(await usdcBalances(offer, payer)).toEqual({
      agentOwner: before.agentOwner + 9_000n,
      platform: before.platform + 1_000n,
      payer: before.payer - 10_000n,
    });
    expect(upstream.received.length).toBe(calls + 1);
    expect((await paymentsOfOwner()).find((payment) => payment.txHash === proof.transaction)).toEqual({
      txHash: proof.transaction,
      agentOwnerId: owner.userId,
      network: 'solana-devnet',
      totalAmount: '10000',
      agentOwnerAmount: '9000',
      serverFeeAmount: '1000',
      asset: offer.asset,
      resource: offer.resource,
      resourceId,
      methodName: 'getForecast',
      payer: payer.publicKey.toBase58(),
      amountUsd: 0.01,
      timestamp: expect.any(String),
      settlementStatus: 'confirmed',
      blockHeight: proof.blockHeight,
      failureReason: null,
      settlement: 'split',
    });
    expect((await api.as(owner.apiKey).get(`/api/sdk/v1/resources/${resourceId}/metrics`)).body.data.totalRevenue).toBeGreaterThanOrEqual(0.01);
  });

  it('answers a replay with ALREADY_SETTLED and the earlier response, and moves nothing', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const offer = selectOffer({ accepts: await offersNow() }, 'USDC');
    const header = createPaymentHeader(offer, payer, await blockhash());
    const first = await ask({ 'X-PAYMENT': header });
    const before = await usdcBalances(offer, payer);
    const calls = upstream.received.length;
    // Act
    const replay = await ask({ 'X-PAYMENT': header });
    // Assess
    expect(first.status).toBe(200);
    expect(replay.status).toBe(402);
    expect(replay.body).toMatchObject({ x402Version: 1, error: 'ALREADY_SETTLED', message: expect.any(String), accepts: expect.any(Array) });
    expect(JSON.parse(replay.body.earlierResponse.body)).toEqual(first.body);
    expect(replay.body.settlement).toEqual(decodePaymentResponse(first.headers.get('x-payment-response')!));
    expect(await usdcBalances(offer, payer)).toEqual(before);
    expect(upstream.received.length).toBe(calls);
  });

  it('settles two concurrent requests with the same payment once', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const offer = selectOffer({ accepts: await offersNow() }, 'USDC');
    const header = createPaymentHeader(offer, payer, await blockhash());
    const before = await usdcBalances(offer, payer);
    // Act
    const answers = await Promise.all([ask({ 'X-PAYMENT': header }), ask({ 'X-PAYMENT': header })]);
    // Assess
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 402]);
    expect(answers.find((answer) => answer.status === 402)!.body.error).toBe('ALREADY_SETTLED');
    expect(await usdcBalances(offer, payer)).toEqual({
      agentOwner: before.agentOwner + 9_000n,
      platform: before.platform + 1_000n,
      payer: before.payer - 10_000n,
    });
  });

  it('serves a POST method with its JSON body as params, priced by the method cost', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const path = `/api/x402/resources/${resourceId}/report`;
    const offer = selectOffer((await api.request('POST', path, { body: { text: 'storm' } })).body, 'USDC');
    const before = await usdcBalances(offer, payer);
    // Act
    const paid = await api.request('POST', path, {
      body: { text: 'storm', tags: ['a'] },
      headers: { 'x-payment': createPaymentHeader(offer, payer, await blockhash()) },
    });
    const notAnObject = await api.request('POST', path, { rawBody: '[1,2]' });
    // Assess
    expect(offer.maxAmountRequired).toBe('50000');
    expect(paid.status).toBe(200);
    expect(upstream.received.at(-1)).toMatchObject({ method: 'POST', url: '/v1/reports' });
    expect(JSON.parse(upstream.received.at(-1)!.body)).toEqual({ text: 'storm', tags: ['a'] });
    expect(await usdcBalances(offer, payer)).toEqual({
      agentOwner: before.agentOwner + 45_000n,
      platform: before.platform + 5_000n,
      payer: before.payer - 50_000n,
    });
    expect(notAnObject.status).toBe(400);
    expect(notAnObject.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
  });

  it('accepts a SOL split through x402 v2 headers and answers with PAYMENT-RESPONSE', async () => {
    // Prepare
    const payer = await givenPayer(api);
    // Below the rent-exempt minimum a wallet cannot receive lamports: SOL is offered only once the seller's wallet can.
    await fund(api, ownerWallet, 'SOL', 0.01);
    const offer = selectOffer({ accepts: await offersNow() }, 'SOL');
    const due = splitAmount(BigInt(offer.maxAmountRequired));
    const [ownerBefore, platformBefore] = await Promise.all([
      lamportBalance(connection, ownerWallet),
      lamportBalance(connection, offer.extra.serverWalletAddress),
    ]);
    // Act
    const paid = await ask({ 'PAYMENT-SIGNATURE': createPaymentHeader(offer, payer, await blockhash(), { version: 2 }) });
    // Assess
    expect(paid.status).toBe(200);
    expect(decodePaymentResponse(paid.headers.get('payment-response')!)).toMatchObject({ success: true, network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' });
    expect(await lamportBalance(connection, ownerWallet)).toBe(ownerBefore + due.agentOwnerAmount);
    expect(await lamportBalance(connection, offer.extra.serverWalletAddress)).toBe(platformBefore + due.serverFeeAmount);
  });
});

/** The same transaction with one byte of its signature flipped. */
function forge(transaction: string): string {
  const wire = Buffer.from(transaction, 'base64');
  wire[1]! ^= 0xff;
  return wire.toString('base64');
}

describe('payments: refused payments move nothing', () => {
  const cases: Array<[string, string, (offer: PaymentRequirement, payer: Keypair, hash: string) => string]> = [
    [
      'under-payment',
      'INSUFFICIENT_AMOUNT',
      (offer, payer, hash) =>
        headerWith(offer, payer, hash, [
          tokenTransfer(payer, offer.asset, offer.payTo, 8_999n),
          tokenTransfer(payer, offer.asset, offer.extra.serverWalletAddress, 1_000n),
        ]),
    ],
    [
      'owner-only payment',
      'INSUFFICIENT_AMOUNT',
      (offer, payer, hash) => headerWith(offer, payer, hash, [tokenTransfer(payer, offer.asset, offer.payTo, 10_000n)]),
    ],
    [
      'wrong network',
      'NETWORK_MISMATCH',
      (offer, payer, hash) => rewriteHeader(createPaymentHeader(offer, payer, hash), (payload) => ({ ...payload, network: 'solana' })),
    ],
    [
      'wrong mint',
      'INSUFFICIENT_AMOUNT',
      (offer, payer, hash) => createPaymentHeader({ ...offer, asset: Keypair.generate().publicKey.toBase58() }, payer, hash),
    ],
    [
      'forged signature',
      'INVALID_PAYMENT',
      (offer, payer, hash) =>
        rewriteHeader(createPaymentHeader(offer, payer, hash), (payload) => ({ ...payload, payload: { transaction: forge(payload.payload.transaction) } })),
    ],
    ['garbage header', 'INVALID_PAYMENT', () => 'bm90IGEgcGF5bWVudA=='],
  ];

  it.each(cases)('refuses %s with %s', async (_label, code, makeHeader) => {
    // Prepare
    const payer = await givenPayer(api);
    const offer = selectOffer({ accepts: await offersNow() }, 'USDC');
    const header = makeHeader(offer, payer, await blockhash());
    const before = await usdcBalances(offer, payer);
    const recorded = (await paymentsOfOwner()).length;
    // Act
    const refused = await ask({ 'X-PAYMENT': header });
    // Assess
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ x402Version: 1, error: code, message: expect.any(String), accepts: expect.any(Array) });
    expect(await usdcBalances(offer, payer)).toEqual(before);
    expect((await paymentsOfOwner()).length).toBe(recorded);
  });

  it('refuses a payment whose blockhash expired with SETTLEMENT_FAILED', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const offer = selectOffer({ accepts: await offersNow() }, 'USDC');
    const header = createPaymentHeader(offer, payer, await blockhash());
    localSolanaBank().warp(200n);
    const before = await usdcBalances(offer, payer);
    // Act
    const refused = await ask({ 'X-PAYMENT': header });
    // Assess
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: 'SETTLEMENT_FAILED', message: expect.stringContaining('blockhash') });
    expect(await usdcBalances(offer, payer)).toEqual(before);
  });

  it('refuses a payer without funds with SETTLEMENT_FAILED and records the failure', async () => {
    // Prepare
    const payer = Keypair.generate();
    const offer = selectOffer({ accepts: await offersNow() }, 'USDC');
    const header = createPaymentHeader(offer, payer, await blockhash());
    // Act
    const refused = await ask({ 'X-PAYMENT': header });
    // Assess
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe('SETTLEMENT_FAILED');
    const failed = (await paymentsOfOwner()).find((payment) => payment.payer === payer.publicKey.toBase58());
    expect(failed).toMatchObject({ settlementStatus: 'failed', failureReason: expect.any(String), blockHeight: null });
  });

  it('refuses params that do not fit the method with VALIDATION_ERROR before anything is paid', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const offer = selectOffer({ accepts: await offersNow() }, 'USDC');
    const header = headerWith(offer, payer, await blockhash(), paymentInstructions(offer, payer.publicKey));
    const before = await usdcBalances(offer, payer);
    // Act
    const refused = await ask({ 'X-PAYMENT': header }, `/api/x402/resources/${resourceId}/getForecast?days=2`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'params.city', value: null } });
    expect(await usdcBalances(offer, payer)).toEqual(before);
  });
});
