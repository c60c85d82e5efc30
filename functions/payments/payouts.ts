// Paying owners their 90% of reference-client payments: owed entries are batched per owner and asset into one
// transfer each, on a schedule (every owed entry) or when an owner's owed sum crosses the threshold. A batch is
// written with its signature before it is sent, so a run that dies mid-way is concluded from the chain, never re-paid.
// A payout carries its own cost: its fee, and the rent of the owner's token account when it creates it, come out of
// the amount, and an owed sum that does not exceed that cost waits for more; many small payees cannot drain the fee payer.
import type { Clock } from '#platform/clock.js';
import { newId } from '#platform/ids.js';
import { logger } from '#platform/logger.js';
import { lamportsToUsdc } from './networks.js';
import type { Landed, PlatformSigners, SolanaLedger } from './ports.js';
import type { PayoutBatch, PayoutEntry, PayoutStore } from './payout-store.js';

export interface PayoutDeps {
  store: PayoutStore;
  ledger: () => Promise<SolanaLedger>;
  signers: () => Promise<PlatformSigners>;
  /** The owner's wallet now; null when they have none (their entries wait). */
  walletOf: (ownerId: string) => Promise<string | null>;
  clock: Clock;
  /** Owed atomic units of `asset` at which an owner is paid out without waiting for the schedule. */
  threshold: (asset: string) => bigint;
  /** How long a payout may take to confirm before the next run concludes it from the chain. */
  confirmTimeoutMs: number;
  /** USD per SOL: what the fee payer's lamports are worth in the asset (USDC, 1:1 with USD). */
  solPriceUsd: number;
}

export interface PayoutRun {
  /** Batches concluded from the chain (sent by an earlier run). */
  reconciled: number;
  paid: Array<{ batchId: string; ownerId: string; asset: string; amount: string; cost: string; payments: number; transaction: string }>;
  failed: Array<{ batchId: string; ownerId: string; reason: string }>;
  /** Sent but not confirmed in time: the next run concludes them. */
  unconfirmed: number;
  /** Owners whose owed sum does not yet exceed what paying it out would cost: it stays owed and grows. */
  deferred: Array<{ ownerId: string; asset: string; owed: string; cost: string }>;
}

/** Entries a batch claimed but whose batch record never got written (a run died in between) wait this long. */
const orphanAfterMs = 5 * 60_000;
/** Claims run in parallel in groups of this size: DynamoDB takes them one item at a time. */
const claimConcurrency = 25;
/** One payout transaction per this many payments at most: the batch item stays far below DynamoDB's 400 KB. */
const maxEntriesPerBatch = 2000;

const sum = (entries: Array<{ amount: string }>) => entries.reduce((total, entry) => total + BigInt(entry.amount), 0n);

async function inGroups<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let index = 0; index < items.length; index += size) results.push(...(await Promise.all(items.slice(index, index + size).map(run))));
  return results;
}

export function createPayoutService(deps: PayoutDeps) {
  const { store, clock } = deps;

  /** Applies a batch's end to the batch and to every entry it holds; safe to repeat. */
  async function conclude(batch: PayoutBatch, landed: Landed): Promise<void> {
    const concludedAt = clock.nowIso();
    await store.concludeBatch(
      batch.batchId,
      landed.status === 'confirmed'
        ? { batchStatus: 'paid', blockHeight: landed.blockHeight, concludedAt }
        : { batchStatus: 'failed', failureReason: landed.reason, concludedAt },
    );
    const current = (await store.getBatch(batch.batchId)) ?? batch;
    await inGroups(current.txHashes, claimConcurrency, async (txHash) => {
      if (current.batchStatus === 'paid') return store.markPaid(txHash, batch.batchId, current.concludedAt ?? concludedAt);
      const entry = await store.getEntry(txHash);
      return entry ? store.release(entry, batch.batchId, current.failureReason ?? 'payout failed') : false;
    });
  }

  /** Submitted batches concluded from the chain; entries of concluded or never-written batches put where they belong. */
  async function reconcile(ledger: SolanaLedger): Promise<number> {
    let reconciled = 0;
    for (const batch of await store.batchesIn('submitted')) {
      const landed = (await ledger.status(batch.signature)) ?? ((await ledger.isBlockhashValid(batch.blockhash)) ? undefined : await expired(ledger, batch));
      if (!landed) continue;
      await conclude(batch, landed);
      reconciled++;
    }
    for (const entry of await store.entriesIn('batched')) {
      const batch = await store.getBatch(entry.batchId!);
      if (batch && batch.batchStatus !== 'submitted')
        await conclude(
          batch,
          batch.batchStatus === 'paid'
            ? { status: 'confirmed', blockHeight: batch.blockHeight ?? 0 }
            : { status: 'failed', reason: batch.failureReason ?? 'payout failed' },
        );
      else if (!batch && Date.parse(entry.batchedAt ?? '') + orphanAfterMs < clock.now())
        await store.release(entry, entry.batchId!, 'its payout was never sent');
    }
    return reconciled;
  }

  /** A blockhash that expired can no longer carry the transaction: unless it landed just before, it failed. */
  async function expired(ledger: SolanaLedger, batch: PayoutBatch): Promise<Landed> {
    return (await ledger.status(batch.signature)) ?? { status: 'failed', reason: 'BlockhashNotFound: expired before it landed' };
  }

  async function payOut(ledger: SolanaLedger, signers: PlatformSigners, owed: PayoutEntry[], run: PayoutRun): Promise<void> {
    const { ownerId, asset } = owed[0]!;
    const walletAddress = await deps.walletOf(ownerId);
    if (!walletAddress) return;
    // The Solana client loads with the first payout: every payments handler composes this service, few pay anyone out.
    const payout = await import('./payout-transaction.js');
    const createAccount = (await ledger.lamports(payout.ownerTokenAccount(asset, walletAddress))) === 0n;
    const costLamports = payout.payoutFeeLamports + (createAccount ? await ledger.rentExemptMinimum(payout.tokenAccountBytes) : 0n);
    const cost = lamportsToUsdc(costLamports, deps.solPriceUsd);
    if (sum(owed) <= cost) {
      run.deferred.push({ ownerId, asset, owed: sum(owed).toString(), cost: cost.toString() });
      return;
    }
    const batchId = newId('pyo');
    const batchedAt = clock.nowIso();
    const claimed = (
      await inGroups(owed, claimConcurrency, async (entry) => ((await store.claim(entry.txHash, batchId, batchedAt)) ? entry : undefined))
    ).filter((entry) => entry !== undefined);
    if (claimed.length === 0) return;
    const amount = sum(claimed);
    if (amount <= cost) {
      // Another run took some of the entries meanwhile: what is left waits for more.
      await inGroups(claimed, claimConcurrency, (entry) => store.release(entry, batchId, 'its owed sum no longer covers the payout cost'));
      return;
    }
    const info = await ledger.info();
    const blockhash = await ledger.latestBlockhash();
    const { wire, signature } = await payout.signedPayout(
      { batchId, asset, walletAddress, amount: amount - cost, createAccount, feePayer: info.feePayer, settlementAccount: info.platformWallet, blockhash },
      signers,
    );
    const batch: PayoutBatch = {
      batchId,
      ownerId,
      asset,
      walletAddress,
      amount: amount.toString(),
      cost: cost.toString(),
      txHashes: claimed.map((entry) => entry.txHash),
      signature,
      blockhash,
      batchStatus: 'submitted',
      createdAt: batchedAt,
    };
    await store.putBatch(batch);
    const outcome = await ledger.settle(wire, signature, deps.confirmTimeoutMs);
    if (outcome.status === 'timeout') {
      run.unconfirmed++;
      return;
    }
    await conclude(batch, outcome);
    if (outcome.status === 'confirmed')
      run.paid.push({ batchId, ownerId, asset, amount: batch.amount, cost: batch.cost!, payments: claimed.length, transaction: signature });
    else {
      logger.warn('payout failed', { batchId, ownerId, reason: outcome.reason });
      run.failed.push({ batchId, ownerId, reason: outcome.reason });
    }
  }

  return {
    /**
     * One payout run: reconcile what earlier runs sent, then pay every owed entry grouped by owner and asset
     * (`only` narrows it to one owner and asset, paid only once their owed sum reaches the threshold).
     */
    async run(only?: { ownerId: string; asset: string }): Promise<PayoutRun> {
      const [ledger, signers] = await Promise.all([deps.ledger(), deps.signers()]);
      const run: PayoutRun = { reconciled: await reconcile(ledger), paid: [], failed: [], unconfirmed: 0, deferred: [] };
      const owed = only ? (await store.owedTo(only.ownerId)).filter((entry) => entry.asset === only.asset) : await store.entriesIn('owed');
      const groups = new Map<string, PayoutEntry[]>();
      for (const entry of owed) {
        const key = `${entry.ownerId} ${entry.asset}`;
        const group = groups.get(key) ?? [];
        if (group.length < maxEntriesPerBatch) group.push(entry);
        groups.set(key, group);
      }
      for (const group of groups.values()) {
        if (only && sum(group) < deps.threshold(only.asset)) continue;
        try {
          await payOut(ledger, signers, group, run);
        } catch (error) {
          // One owner's trouble (an unreadable wallet, a network error) must not hold up the others.
          logger.error('payout run failed for an owner', { ownerId: group[0]!.ownerId, error: (error as Error).message });
          run.failed.push({ batchId: '', ownerId: group[0]!.ownerId, reason: (error as Error).message });
        }
      }
      return run;
    },

    /** Whether an owner's owed sum in `asset` reached the threshold, so a payout should run now. */
    async isDue(ownerId: string, asset: string): Promise<boolean> {
      return sum((await store.owedTo(ownerId)).filter((entry) => entry.asset === asset)) >= deps.threshold(asset);
    },

    /** What an owner is owed and was paid, per asset, and their payouts, newest first. */
    async ofOwner(ownerId: string, page: { limit: number; offset: number }) {
      const [owed, batches] = await Promise.all([store.owedTo(ownerId), store.batchesOf(ownerId)]);
      const assets = new Set([...owed.map((entry) => entry.asset), ...batches.map((batch) => batch.asset)]);
      const balances = [...assets].map((asset) => ({
        asset,
        owed: sum(owed.filter((entry) => entry.asset === asset)).toString(),
        inFlight: sum(batches.filter((batch) => batch.asset === asset && batch.batchStatus === 'submitted')).toString(),
        paid: sum(batches.filter((batch) => batch.asset === asset && batch.batchStatus === 'paid')).toString(),
      }));
      const payouts = batches.slice(page.offset, page.offset + page.limit).map((batch) => ({
        batchId: batch.batchId,
        asset: batch.asset,
        amount: batch.amount,
        cost: batch.cost ?? '0',
        walletAddress: batch.walletAddress,
        status: batch.batchStatus,
        transaction: batch.signature,
        payments: batch.txHashes.length,
        createdAt: batch.createdAt,
        concludedAt: batch.concludedAt ?? null,
        failureReason: batch.failureReason ?? null,
      }));
      return { balances, payouts, total: batches.length, limit: page.limit, offset: page.offset };
    },
  };
}

export type PayoutService = ReturnType<typeof createPayoutService>;
