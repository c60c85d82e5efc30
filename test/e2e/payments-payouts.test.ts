// Payouts of owners' shares on the embedded bank: a payout that fails is retried and paid once; a payout whose
// confirmation was lost is concluded from the chain and never sent again; a threshold crossing pays at once.
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import type { Connection } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigner, wrapFetchWithPayment } from 'x402-fetch';
import { localSolanaBank } from '../../functions/adapters/local/solana-bank.js';
import { bankLedger } from '../../functions/adapters/local/solana-ledger.js';
import { bankSigners } from '../../functions/adapters/local/solana-signers.js';
import { createPayoutStore } from '../../functions/payments/payout-store.js';
import { createPayoutService } from '../../functions/payments/payouts.js';
import { systemClock } from '../../functions/platform/clock.js';
import { type TestApi, type TestUser, reconfigurePlatform, startTestPlatform } from '../support/platform.js';
import { fund, givenPayer, solanaConnection, tokenBalance } from '../support/payments.js';
import { type Upstream, givenPublishedResource, json, startUpstream } from '../support/resources.js';

let api: TestApi;
let upstream: Upstream;
let connection: Connection;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform({ ownTables: true }), startUpstream()]);
  upstream.respond((request, response) => json(response, 200, { forecast: 'sunny', path: request.url }));
  connection = solanaConnection(api);
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

interface Seller {
  user: TestUser;
  wallet: string;
  path: string;
  usdcMint: string;
}

async function givenSeller(): Promise<Seller> {
  const wallet = Keypair.generate().publicKey.toBase58();
  const user = await api.givenUser({ walletAddress: wallet });
  const resourceId = await givenPublishedResource(
    api,
    user,
    { pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' } },
    { baseUrl: `${upstream.baseUrl}/v1` },
  );
  const path = `/api/x402/resources/${resourceId}/getForecast?city=Oslo`;
  return { user, wallet, path, usdcMint: (await api.request('GET', path)).body.accepts[0].asset };
}

/** Pays `times` calls with the unmodified x402-fetch client (it takes the payout offer). */
async function paidCalls(seller: Seller, times: number): Promise<void> {
  const payer = await givenPayer(api);
  const pay = wrapFetchWithPayment(fetch, await createSigner('solana-devnet', bs58.encode(payer.secretKey)), undefined, undefined, {
    svmConfig: { rpcUrl: `${api.baseUrl}/solana` },
  });
  for (let index = 0; index < times; index++) {
    const response = await pay(`${api.baseUrl}${seller.path}&n=${index}`);
    if (response.status !== 200) throw new Error(`paid call answered ${response.status}: ${await response.text()}`);
    // The reference client's transaction of one price is the same bytes under one blockhash, as on Solana: the next
    // payment waits for a blockhash newer than the latest one after this payment (the one it used, or a later one),
    // or it would be the same (already settled) transaction.
    const { blockhash } = await connection.getLatestBlockhash();
    await expect.poll(async () => (await connection.getLatestBlockhash()).blockhash, { timeout: 10_000 }).not.toBe(blockhash);
  }
}

const ownerUsdc = (seller: Seller) => tokenBalance(connection, seller.usdcMint, seller.wallet);
const payoutsOf = async (seller: Seller) => (await api.as(seller.user.apiKey).get('/api/sdk/v1/payments/payouts')).body.data;
const runPayouts = async () => (await api.request('POST', '/api/x402/dev/payouts')).body.data;

/** Moves every lamport out of the fee payer, as an operator who forgot to top it up would find it. */
function drainFeePayer(): void {
  const bank = localSolanaBank();
  const held = bank.getAccount(bank.feePayer.publicKey.toBase58())!.lamports;
  const message = new TransactionMessage({
    payerKey: bank.feePayer.publicKey,
    recentBlockhash: bank.latestBlockhash().blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: bank.feePayer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: held - 5_000n })],
  }).compileToV0Message();
  const transaction = new VersionedTransaction(message);
  transaction.sign([bank.feePayer]);
  const outcome = bank.send(transaction.serialize());
  if (outcome.err) throw new Error(`could not drain the fee payer: ${JSON.stringify(outcome.err)}`);
}

describe('payments: payouts', () => {
  it('retries a payout that failed and pays it exactly once', async () => {
    // Prepare
    const seller = await givenSeller();
    await paidCalls(seller, 2);
    const before = await ownerUsdc(seller);
    drainFeePayer();
    // Act
    const failed = await runPayouts();
    const afterFailure = { balance: await ownerUsdc(seller), ledger: await payoutsOf(seller) };
    await fund(api, localSolanaBank().feePayer.publicKey.toBase58(), 'SOL', 10);
    const retried = await runPayouts();
    const again = await runPayouts();
    // Assess
    expect(failed.failed).toEqual([expect.objectContaining({ ownerId: seller.user.userId })]);
    expect(afterFailure.balance).toBe(before);
    expect(afterFailure.ledger.balances).toEqual([{ asset: seller.usdcMint, owed: '18000', inFlight: '0', paid: '0' }]);
    expect(afterFailure.ledger.payouts).toEqual([expect.objectContaining({ status: 'failed', amount: '18000', failureReason: expect.any(String) })]);
    expect(retried.paid).toEqual([expect.objectContaining({ ownerId: seller.user.userId, amount: '18000', payments: 2 })]);
    expect(again.paid).toEqual([]);
    expect(await ownerUsdc(seller)).toBe(before + 18_000n);
    const ledger = await payoutsOf(seller);
    expect(ledger.balances).toEqual([{ asset: seller.usdcMint, owed: '0', inFlight: '0', paid: '18000' }]);
    expect(ledger.payouts.map((payout: { status: string }) => payout.status).sort()).toEqual(['failed', 'paid']);
  });

  it('concludes a payout whose confirmation was lost from the chain and never sends it again', async () => {
    // Prepare: a ledger that submits but loses the answer, as a network timeout would
    const seller = await givenSeller();
    await paidCalls(seller, 1);
    const before = await ownerUsdc(seller);
    const real = bankLedger();
    const lossy = createPayoutService({
      store: createPayoutStore(),
      ledger: async () => ({ ...real, settle: async (wire, signature, timeoutMs) => (await real.settle(wire, signature, timeoutMs), { status: 'timeout' }) }),
      signers: async () => bankSigners(),
      walletOf: async () => seller.wallet,
      clock: systemClock,
      threshold: () => 1n,
      confirmTimeoutMs: 1_000,
    });
    // Act
    const lost = await lossy.run({ ownerId: seller.user.userId, asset: seller.usdcMint });
    const inFlight = await payoutsOf(seller);
    const reconciled = await runPayouts();
    // Assess
    expect(lost).toMatchObject({ paid: [], failed: [], unconfirmed: 1 });
    expect(inFlight.balances).toEqual([{ asset: seller.usdcMint, owed: '0', inFlight: '9000', paid: '0' }]);
    expect(reconciled.reconciled).toBeGreaterThanOrEqual(1);
    expect(reconciled.paid.filter((payout: { ownerId: string }) => payout.ownerId === seller.user.userId)).toEqual([]);
    expect(await ownerUsdc(seller)).toBe(before + 9_000n);
    expect((await payoutsOf(seller)).balances).toEqual([{ asset: seller.usdcMint, owed: '0', inFlight: '0', paid: '9000' }]);
  });

  it('pays an owner at once when their owed sum crosses the threshold', async () => {
    // Prepare
    const seller = await givenSeller();
    reconfigurePlatform({ PAYOUT_THRESHOLD_USDC: '0.015' });
    try {
      // Act
      await paidCalls(seller, 2);
      // Assess: the payout runs in the background of the second call
      await expect.poll(() => ownerUsdc(seller), { timeout: 30_000 }).toBe(18_000n);
      expect((await payoutsOf(seller)).payouts).toEqual([expect.objectContaining({ status: 'paid', amount: '18000', payments: 2 })]);
    } finally {
      reconfigurePlatform({ PAYOUT_THRESHOLD_USDC: undefined });
    }
  });

  it("creates the owner's token account when it is missing", async () => {
    // Prepare
    const seller = await givenSeller();
    await paidCalls(seller, 1);
    const account = await connection.getAccountInfo(getAssociatedTokenAddressSync(new PublicKey(seller.usdcMint), new PublicKey(seller.wallet)));
    // Act
    await runPayouts();
    // Assess
    expect(account).toBeNull();
    expect(await ownerUsdc(seller)).toBe(9_000n);
  });
});
