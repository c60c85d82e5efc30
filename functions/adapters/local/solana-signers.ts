import { type PlatformSigners, signWith, signingKey } from '#functions/payments/ports.js';
import { localSolanaBank } from './solana-bank.js';

/** The bank's own fee payer and platform wallet keypairs (files under the data directory). */
export function bankSigners(): PlatformSigners {
  const bank = localSolanaBank();
  const feePayer = signingKey(bank.feePayer.secretKey);
  const settlement = signingKey(bank.platformWallet.secretKey);
  return {
    signAsFeePayer: async (message) => signWith(feePayer, message),
    signAsSettlement: async (message) => signWith(settlement, message),
  };
}
