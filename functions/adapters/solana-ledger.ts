import { config } from '#platform/config.js';
import type { SolanaLedger } from '#functions/payments/ledger.js';
import { paymentSettings } from '#functions/payments/settings.js';
import type { PlatformSigners } from '#functions/payments/signers.js';
import { platformWalletAddress } from './aws/platform-wallet.js';
import { rpcLedger } from './aws/solana-ledger.js';
import { secretSigners, walletKey } from './aws/solana-signers.js';

let remote: { key: string; ledger: SolanaLedger } | undefined;

export async function solanaLedger(): Promise<SolanaLedger> {
  if (config.mode === 'local') {
    // A computed specifier keeps esbuild from bundling litesvm's native binary into the Lambda packages.
    const specifier = './local/solana-ledger.js';
    const local = (await import(specifier)) as typeof import('./local/solana-ledger.js');
    return local.bankLedger();
  }
  const { network, rpcUrl } = paymentSettings;
  const key = `${network} ${rpcUrl}`;
  if (remote?.key !== key) remote = { key, ledger: rpcLedger({ rpcUrl, network, platformWallet: platformWalletAddress, feePayer: feePayerAddress }) };
  return remote.ledger;
}

/** The fee payer's address: from the stack's context when given, else from its secret. */
async function feePayerAddress(): Promise<string> {
  const { feePayerAddress: address, feePayerSecretArn } = paymentSettings;
  if (address) return address;
  if (!feePayerSecretArn) throw new Error('FEE_PAYER_ADDRESS and FEE_PAYER_SECRET_ARN are unset: give the stack the feePayerAddress context');
  return (await walletKey(feePayerSecretArn)).address;
}

export async function platformSigners(): Promise<PlatformSigners> {
  if (config.mode === 'local') {
    const specifier = './local/solana-signers.js';
    const local = (await import(specifier)) as typeof import('./local/solana-signers.js');
    return local.bankSigners();
  }
  return secretSigners({ feePayer: () => paymentSettings.feePayerSecretArn, settlement: () => paymentSettings.platformWalletSecretArn });
}
