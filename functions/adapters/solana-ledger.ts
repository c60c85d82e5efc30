import { settings } from '#platform/settings.js';
import type { SolanaLedger } from '#functions/payments/ledger.js';
import { paymentSettings } from '#functions/payments/settings.js';
import { platformWalletAddress } from './aws/platform-wallet.js';
import { rpcLedger } from './aws/solana-ledger.js';

let remote: { key: string; ledger: SolanaLedger } | undefined;

export async function solanaLedger(): Promise<SolanaLedger> {
  if (settings.mode === 'local') {
    // A computed specifier keeps esbuild from bundling litesvm's native binary into the Lambda packages.
    const specifier = './local/solana-ledger.js';
    const local = (await import(specifier)) as typeof import('./local/solana-ledger.js');
    return local.bankLedger();
  }
  const { network, rpcUrl } = paymentSettings;
  const key = `${network} ${rpcUrl}`;
  if (remote?.key !== key) remote = { key, ledger: rpcLedger({ rpcUrl, network, platformWallet: platformWalletAddress }) };
  return remote.ledger;
}
