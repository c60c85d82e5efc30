import type { SolanaLedger } from '#functions/payments/ports.js';
import { localSolanaBank } from './solana-bank.js';
import { describeTransactionError } from './solana-errors.js';

/** The ledger port over the embedded bank: a transaction is confirmed, or refused, the moment it is processed. */
export function bankLedger(): SolanaLedger {
  const bank = localSolanaBank();
  return {
    info: async () => ({
      network: 'solana-devnet',
      usdcMint: bank.usdcMint.toBase58(),
      platformWallet: bank.platformWallet.publicKey.toBase58(),
      feePayer: bank.feePayer.publicKey.toBase58(),
    }),
    isBlockhashValid: async (blockhash) => bank.isBlockhashValid(blockhash),
    latestBlockhash: async () => bank.latestBlockhash().blockhash,
    lamports: async (address) => bank.getAccount(address)?.lamports ?? 0n,
    rentExemptMinimum: async (dataBytes = 0) => bank.minimumBalanceForRentExemption(BigInt(dataBytes)),
    async simulate(wireTransaction) {
      const { err } = bank.simulate(wireTransaction);
      return err ? { ok: false, reason: describeTransactionError(err) } : { ok: true };
    },
    async status(signature) {
      const known = bank.signatureStatus(signature);
      if (!known) return undefined;
      return known.err ? { status: 'failed', reason: describeTransactionError(known.err) } : { status: 'confirmed', blockHeight: Number(known.slot) };
    },
    async settle(wireTransaction) {
      const outcome = bank.send(wireTransaction);
      return outcome.err ? { status: 'failed', reason: describeTransactionError(outcome.err) } : { status: 'confirmed', blockHeight: Number(outcome.slot) };
    },
  };
}
