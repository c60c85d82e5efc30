// The unmodified reference x402 clients pay a paid call on the embedded bank: x402-fetch 1.x (package x402's SVM
// signer) and @x402/fetch 2.x with @x402/svm. Each takes the payout offer (first in accepts): full price to the
// settlement account, the platform's fee payer co-signing. The owner's 90% is then paid out in a batch, less its fee.
import { createKeyPairSignerFromBytes } from '@solana/kit';
import type { Keypair } from '@solana/web3.js';
import { x402Client, wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch';
import { ExactSvmScheme, toClientSvmSigner } from '@x402/svm';
import bs58 from 'bs58';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch';
import { decodePaymentResponse } from '../../functions/payments/client.js';
import { payoutFeeLamports } from '../../functions/payments/payout-transaction.js';
import { fund, givenPayer, lamportBalance, localPayoutCost, paymentWorld, tokenBalance } from '../support/payments.js';

const world = paymentWorld();
let usdcMint: string;
let platformWallet: string;
let feePayer: string;

beforeAll(async () => {
  const [payout] = (await world.api.request('GET', world.paidPath)).body.accepts;
  ({ asset: usdcMint, payTo: platformWallet } = payout);
  feePayer = payout.extra.feePayer;
});

const upstreamCalls = () => world.upstream.received.filter((request) => request.url.includes('/forecast')).length;

async function balances(payer: Keypair) {
  const [payerUsdc, platformUsdc, ownerUsdc, feePayerLamports] = await Promise.all([
    tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58()),
    tokenBalance(world.connection, usdcMint, platformWallet),
    tokenBalance(world.connection, usdcMint, world.ownerWallet),
    lamportBalance(world.connection, feePayer),
  ]);
  return { payerUsdc, platformUsdc, ownerUsdc, feePayerLamports };
}

/** A fetch that keeps the payment headers the client sends, to replay them. */
function recordingFetch(sent: Array<Record<string, string>>): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const payment = headers.get('x-payment') ?? headers.get('payment-signature');
    if (payment) sent.push({ [headers.has('x-payment') ? 'x-payment' : 'payment-signature']: payment });
    return fetch(input, init);
  };
}

const clients = {
  'x402-fetch 1.x': async (payer: Keypair, sent: Array<Record<string, string>>) =>
    wrapFetchV1(recordingFetch(sent), await createSigner('solana-devnet', bs58.encode(payer.secretKey)), undefined, undefined, {
      svmConfig: { rpcUrl: `${world.api.baseUrl}/solana` },
    }),
  '@x402/fetch 2.x': async (payer: Keypair, sent: Array<Record<string, string>>) => {
    const signer = toClientSvmSigner(await createKeyPairSignerFromBytes(payer.secretKey));
    return wrapFetchV2(recordingFetch(sent), new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: `${world.api.baseUrl}/solana` })));
  },
};

describe('payments: unmodified reference x402 clients', () => {
  for (const [client, paying] of Object.entries(clients)) {
    it(`${client} pays once: the upstream is called once, the full price moves to the settlement account once, a replay moves nothing`, async () => {
      // Prepare
      const payer = await givenPayer(world.api);
      const sent: Array<Record<string, string>> = [];
      const pay = await paying(payer, sent);
      const [before, callsBefore] = [await balances(payer), upstreamCalls()];
      // Act
      const response = await pay(`${world.api.baseUrl}${world.paidPath}`);
      const body = await response.json();
      const afterPaying = await balances(payer);
      const replay = await world.api.request('GET', world.paidPath, { headers: sent[0]! });
      // Assess
      expect(response.status).toBe(200);
      expect(body).toMatchObject({ forecast: 'sunny' });
      const proof = decodePaymentResponse(response.headers.get('x-payment-response') ?? response.headers.get('payment-response')!);
      expect(proof).toMatchObject({ success: true, payer: payer.publicKey.toBase58() });
      expect(sent).toHaveLength(1);
      expect(upstreamCalls()).toBe(callsBefore + 1);
      expect(afterPaying.payerUsdc).toBe(before.payerUsdc - 10_000n);
      expect(afterPaying.platformUsdc).toBe(before.platformUsdc + 10_000n);
      expect(afterPaying.ownerUsdc).toBe(before.ownerUsdc);
      expect(afterPaying.feePayerLamports).toBeLessThan(before.feePayerLamports);
      const record = (await world.api.as(world.owner.apiKey).get(`/api/sdk/v1/payments/${proof.transaction}`)).body.data;
      expect(record).toMatchObject({
        settlement: 'payout',
        settlementStatus: 'confirmed',
        totalAmount: '10000',
        agentOwnerAmount: '9000',
        serverFeeAmount: '1000',
        payer: payer.publicKey.toBase58(),
      });
      expect(replay.status).toBe(402);
      expect(replay.body).toMatchObject({ error: 'ALREADY_SETTLED' });
      expect(await balances(payer)).toEqual(afterPaying);
      expect(upstreamCalls()).toBe(callsBefore + 1);
    });
  }

  it('pays the owners their 90% in one payout per owner and asset, less its fee: the platform keeps exactly 10%, the fee payer spends what the payout kept', async () => {
    // Prepare: what the two reference-client payments above owe the world.owner, who already holds USDC (has a token account)
    await fund(world.api, world.ownerWallet, 'USDC', 1);
    const payer = await givenPayer(world.api);
    const owedBefore = (await world.api.as(world.owner.apiKey).get('/api/sdk/v1/payments/payouts')).body.data;
    const before = await balances(payer);
    // Act
    const run = (await world.api.request('POST', '/api/x402/dev/payouts')).body.data;
    const again = (await world.api.request('POST', '/api/x402/dev/payouts')).body.data;
    // Assess
    const after = await balances(payer);
    const owedAfter = (await world.api.as(world.owner.apiKey).get('/api/sdk/v1/payments/payouts')).body.data;
    const cost = localPayoutCost(payoutFeeLamports);
    expect(owedBefore.balances).toEqual([{ asset: usdcMint, owed: '18000', inFlight: '0', paid: '0' }]);
    expect(run.paid).toEqual([expect.objectContaining({ ownerId: world.owner.userId, asset: usdcMint, amount: '18000', cost: cost.toString(), payments: 2 })]);
    expect(again.paid).toEqual([]);
    expect(after.ownerUsdc).toBe(before.ownerUsdc + 18_000n - cost);
    expect(after.platformUsdc).toBe(before.platformUsdc - 18_000n + cost);
    expect(after.feePayerLamports).toBe(before.feePayerLamports - payoutFeeLamports);
    expect(owedAfter.balances).toEqual([{ asset: usdcMint, owed: '0', inFlight: '0', paid: '18000' }]);
    expect(owedAfter.payouts).toEqual([
      expect.objectContaining({
        status: 'paid',
        amount: '18000',
        cost: cost.toString(),
        payments: 2,
        walletAddress: world.ownerWallet,
        transaction: run.paid[0].transaction,
      }),
    ]);
  });

  it('takes the split offer only when the owner turned the payout offer off', async () => {
    // Act
    const put = await world.api.request('PUT', '/api/sdk/v1/payments/settings', {
      body: { splitOfferOnly: true },
      headers: { 'x-api-key': world.owner.apiKey },
    });
    const offers = (await world.api.request('GET', world.paidPath)).body.accepts as Array<{ extra: { settlement: string } }>;
    const bad = await world.api.request('PUT', '/api/sdk/v1/payments/settings', {
      body: { splitOfferOnly: 'yes' },
      headers: { 'x-api-key': world.owner.apiKey },
    });
    await world.api.request('PUT', '/api/sdk/v1/payments/settings', { body: { splitOfferOnly: false }, headers: { 'x-api-key': world.owner.apiKey } });
    // Assess
    expect(put.body.data).toEqual({ splitOfferOnly: true });
    expect(offers.map((offer) => offer.extra.settlement)).toEqual(['split']);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'splitOfferOnly' } });
    expect((await world.api.as(world.owner.apiKey).get('/api/sdk/v1/payments/settings')).body.data).toEqual({ splitOfferOnly: false });
  });

  it('shows each owner their own payouts only, and refuses bad paging with VALIDATION_ERROR', async () => {
    // Prepare
    const stranger = await world.api.givenUser();
    // Act
    const theirs = await world.api.as(stranger.apiKey).get('/api/sdk/v1/payments/payouts');
    const bad = await world.api.as(world.owner.apiKey).get('/api/sdk/v1/payments/payouts?limit=1000');
    // Assess
    expect(theirs.body.data).toEqual({ balances: [], payouts: [], total: 0, limit: 20, offset: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'limit' } });
  });
});
