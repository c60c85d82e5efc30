// The ledger port over a Solana RPC node (@solana/web3.js), for `solana` or `solana-devnet`.
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection, PublicKey, SendTransactionError, VersionedTransaction } from '@solana/web3.js';
import { type Landed, type LedgerInfo, type SolanaLedger, usdcMints } from '#functions/payments/ports.js';

export interface RpcLedgerOptions {
  rpcUrl: string;
  network: LedgerInfo['network'];
  platformWallet: () => Promise<string>;
  feePayer: () => Promise<string>;
  /** How often the signature status is polled while waiting for confirmation. */
  pollMs?: number;
}

export function rpcLedger(options: RpcLedgerOptions): SolanaLedger {
  const connection = new Connection(options.rpcUrl, { commitment: 'confirmed' });
  const pollMs = options.pollMs ?? 400;
  const rentExempt = new Map<number, Promise<bigint>>();

  async function status(signature: string): Promise<Landed | undefined> {
    const [found] = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value;
    if (found?.err) return { status: 'failed', reason: JSON.stringify(found.err) };
    if (found?.confirmationStatus !== 'confirmed' && found?.confirmationStatus !== 'finalized') return undefined;
    const block = await connection.getParsedBlock(found.slot, {
      commitment: 'confirmed',
      transactionDetails: 'none',
      rewards: false,
      maxSupportedTransactionVersion: 0,
    });
    return { status: 'confirmed', blockHeight: block?.blockHeight ?? found.slot };
  }

  return {
    info: async () => {
      const [platformWallet, feePayer] = await Promise.all([options.platformWallet(), options.feePayer()]);
      return { network: options.network, usdcMint: usdcMints[options.network], platformWallet, feePayer };
    },

    isBlockhashValid: async (blockhash) => (await connection.isBlockhashValid(blockhash, { commitment: 'confirmed' })).value,

    latestBlockhash: async () => (await connection.getLatestBlockhash('confirmed')).blockhash,

    lamports: async (address) => BigInt(await connection.getBalance(new PublicKey(address), 'confirmed')),

    async rentExemptMinimum(dataBytes = 0) {
      const known = rentExempt.get(dataBytes) ?? connection.getMinimumBalanceForRentExemption(dataBytes).then(BigInt);
      rentExempt.set(dataBytes, known);
      return known;
    },

    status,

    async simulate(wireTransaction) {
      const { value } = await connection.simulateTransaction(VersionedTransaction.deserialize(wireTransaction), { sigVerify: true, commitment: 'confirmed' });
      return value.err ? { ok: false, reason: JSON.stringify(value.err) } : { ok: true };
    },

    async settle(wireTransaction, signature, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      try {
        // With preflight, a transaction that would fail is refused before it can land and cost the payer a fee.
        await connection.sendRawTransaction(wireTransaction, { skipPreflight: false, preflightCommitment: 'confirmed' });
      } catch (error) {
        if (!(error instanceof SendTransactionError)) throw error;
        // Already processed means it landed earlier: its status below says how it went.
        if (!/already been processed|AlreadyProcessed/i.test(error.message)) return { status: 'failed', reason: error.message };
      }
      while (Date.now() < deadline) {
        const settled = await status(signature);
        if (settled) return settled;
        await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
      }
      return { status: 'timeout' };
    },
  };
}
