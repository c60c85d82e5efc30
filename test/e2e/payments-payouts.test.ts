// Payouts of owners' shares on the embedded bank: a payout that fails is retried and paid once; a payout whose
// confirmation was lost is concluded from the chain and never sent again; a threshold crossing pays at once; each
// payout carries its own cost (fee, and the owner's token account rent when it creates it).
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import type { Connection } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSolanaBank } from '../../functions/adapters/local/solana-bank.js';
import { bankLedger } from '../../functions/adapters/local/solana-ledger.js';
import { bankSigners } from '../../functions/adapters/local/solana-signers.js';
import { createPayoutStore } from '../../functions/payments/payout-store.js';
import { payoutFeeLamports, tokenAccountBytes } from '../../functions/payments/payout-transaction.js';
import { createPayoutService } from '../../functions/payments/payouts.js';
import { systemClock } from '../../functions/platform/clock.js';
import { type TestApi, reconfigurePlatform, startTestPlatform } from '../support/platform.js';
import { type Seller, fund, givenSeller, localPayoutCost, paidCalls, runPayouts, solanaConnection, tokenBalance } from '../support/payments.js';
import { type Upstream, json, startUpstream } from '../support/resources.js';

let api: TestApi;
let upstream: Upstream;
let connection: Connection;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform({ ownTables: true }), startUpstream()]);
  upstream.respond((request, response) => json(response, 200, { forecast: 'sunny', path: request.url }));
  connection = solanaConnection(api);
  firstPayoutCost = localPayoutCost(payoutFeeLamports + BigInt(await connection.getMinimumBalanceForRentExemption(tokenAccountBytes)));
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

/** 0.5 USDC a call: the owner's 90% (450,000 units) covers a first payout's cost, token account rent included. */
const price = 0.5;
const owedPerCall = 450_000n;
const newSeller = () => givenSeller(api, upstream, price);
/** What a payout costs in micro-USDC: the fee, and the rent of the owner's token account when it creates it. */
let firstPayoutCost: bigint;
const laterPayoutCost = localPayoutCost(payoutFeeLamports);

const ownerUsdc = (seller: Seller) => tokenBalance(connection, seller.usdcMint, seller.wallet);
const payoutsOf = async (seller: Seller) => (await api.as(seller.user.apiKey).get('/api/sdk/v1/payments/payouts')).body.data;

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
    const seller = await newSeller();
    await paidCalls(api, seller, 2);
    const before = await ownerUsdc(seller);
    drainFeePayer();
    // Act
    const failed = await runPayouts(api);
    const afterFailure = { balance: await ownerUsdc(seller), ledger: await payoutsOf(seller) };
    await fund(api, localSolanaBank().feePayer.publicKey.toBase58(), 'SOL', 10);
    const retried = await runPayouts(api);
    const again = await runPayouts(api);
    // Assess
    const owed = (2n * owedPerCall).toString();
    expect(failed.failed).toEqual([expect.objectContaining({ ownerId: seller.user.userId })]);
    expect(afterFailure.balance).toBe(before);
    expect(afterFailure.ledger.balances).toEqual([{ asset: seller.usdcMint, owed, inFlight: '0', paid: '0' }]);
    expect(afterFailure.ledger.payouts).toEqual([expect.objectContaining({ status: 'failed', amount: owed, failureReason: expect.any(String) })]);
    expect(retried.paid).toEqual([expect.objectContaining({ ownerId: seller.user.userId, amount: owed, cost: firstPayoutCost.toString(), payments: 2 })]);
    expect(again.paid).toEqual([]);
    expect(await ownerUsdc(seller)).toBe(before + 2n * owedPerCall - firstPayoutCost);
    const ledger = await payoutsOf(seller);
    expect(ledger.balances).toEqual([{ asset: seller.usdcMint, owed: '0', inFlight: '0', paid: owed }]);
    expect(ledger.payouts.map((payout: { status: string }) => payout.status).sort()).toEqual(['failed', 'paid']);
  });

  it('concludes a payout whose confirmation was lost from the chain and never sends it again', async () => {
    // Prepare: a ledger that submits but loses the answer, as a network timeout would
    const seller = await newSeller();
    await paidCalls(api, seller, 1);
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
      solPriceUsd: 150,
    });
    // Act
    const lost = await lossy.run({ ownerId: seller.user.userId, asset: seller.usdcMint });
    const inFlight = await payoutsOf(seller);
    const reconciled = await runPayouts(api);
    // Assess
    expect(lost).toMatchObject({ paid: [], failed: [], unconfirmed: 1 });
    const owed = owedPerCall.toString();
    expect(inFlight.balances).toEqual([{ asset: seller.usdcMint, owed: '0', inFlight: owed, paid: '0' }]);
    expect(reconciled.reconciled).toBeGreaterThanOrEqual(1);
    expect(reconciled.paid.filter((payout: { ownerId: string }) => payout.ownerId === seller.user.userId)).toEqual([]);
    expect(await ownerUsdc(seller)).toBe(before + owedPerCall - firstPayoutCost);
    expect((await payoutsOf(seller)).balances).toEqual([{ asset: seller.usdcMint, owed: '0', inFlight: '0', paid: owed }]);
  });

  it('pays an owner at once when their owed sum crosses the threshold', async () => {
    // Prepare
    const seller = await newSeller();
    reconfigurePlatform({ PAYOUT_THRESHOLD_USDC: '0.8' });
    try {
      // Act
      await paidCalls(api, seller, 2);
      // Assess: the payout runs in the background of the second call
      await expect.poll(() => ownerUsdc(seller), { timeout: 30_000 }).toBe(2n * owedPerCall - firstPayoutCost);
      expect((await payoutsOf(seller)).payouts).toEqual([expect.objectContaining({ status: 'paid', amount: (2n * owedPerCall).toString(), payments: 2 })]);
    } finally {
      reconfigurePlatform({ PAYOUT_THRESHOLD_USDC: undefined });
    }
  });

  it("creates the owner's token account when it is missing, charging its rent to that payout only", async () => {
    // Prepare
    const seller = await newSeller();
    await paidCalls(api, seller, 1);
    const account = await connection.getAccountInfo(getAssociatedTokenAddressSync(new PublicKey(seller.usdcMint), new PublicKey(seller.wallet)));
    // Act
    const first = await runPayouts(api);
    await paidCalls(api, seller, 1);
    const second = await runPayouts(api);
    // Assess
    expect(account).toBeNull();
    const paidTo = (run: { paid: Array<{ ownerId: string; cost: string }> }) => run.paid.filter((payout) => payout.ownerId === seller.user.userId);
    expect([...paidTo(first), ...paidTo(second)].map((payout) => payout.cost)).toEqual([firstPayoutCost.toString(), laterPayoutCost.toString()]);
    expect(await ownerUsdc(seller)).toBe(2n * owedPerCall - firstPayoutCost - laterPayoutCost);
  });
});
