// The payments area's ports on a platform: the Solana ledger, the platform's signing keys, the payout trigger and,
// locally only, the faucet and RPC endpoint. The Solana client loads on first use.
import { lambdaPayoutTrigger } from '#adapters/aws/payout-trigger.js';
import type { PlatformSigners, SolanaLedger } from '#functions/payments/ports.js';
import type { PaymentSettings } from '#functions/payments/settings.js';
import { tableGrant, withGrantedTables } from '#platform/dynamo.js';
import { routeTables } from '#platform/route.js';
import { type Platform, type SolanaDevTools, perPlatform } from './platform.js';

const remoteLedger = perPlatform(async ({ settings: { payments } }): Promise<SolanaLedger> => {
  // Loaded on first use: the Solana client weighs on the cold start of every function that never pays.
  const [{ rpcLedger }, { platformWalletAddress }] = await Promise.all([import('#adapters/aws/solana-ledger.js'), import('#adapters/aws/platform-wallet.js')]);
  return rpcLedger({
    rpcUrl: payments.rpcUrl,
    network: payments.network,
    platformWallet: () => platformWalletAddress({ address: payments.platformWalletAddress, secretArn: payments.platformWalletSecretArn }),
    feePayer: () => feePayerAddress(payments),
  });
});

export const solanaLedger = (platform: Platform) => (): Promise<SolanaLedger> =>
  process.env.PLATFORM_MODE === 'local' ? platform.local!.solanaLedger() : remoteLedger(platform);

/** The fee payer's address: from the stack's context when given, else from its secret. */
async function feePayerAddress({ feePayerAddress: address, feePayerSecretArn }: PaymentSettings): Promise<string> {
  if (address) return address;
  if (!feePayerSecretArn) throw new Error('FEE_PAYER_ADDRESS and FEE_PAYER_SECRET_ARN are unset: give the stack the feePayerAddress context');
  const { walletKey } = await import('#adapters/aws/solana-signers.js');
  return (await walletKey(feePayerSecretArn)).address;
}

/** The keys that co-sign reference-client payments (fee payer) and send payouts (settlement account). */
export const platformSigners =
  ({ local, settings: { payments } }: Platform) =>
  async (): Promise<PlatformSigners> => {
    if (process.env.PLATFORM_MODE === 'local') return local!.platformSigners();
    const { secretSigners } = await import('#adapters/aws/solana-signers.js');
    return secretSigners({ feePayer: () => payments.feePayerSecretArn, settlement: () => payments.platformWalletSecretArn });
  };

/**
 * On AWS the payout function runs with its own grants; locally its run in this process gets the same tables. Its
 * spec is loaded there only: a static import would bring the payments schemas into every bundle of the root.
 */
export const payoutTrigger = (
  { local, settings }: Platform,
  run: (ownerId: string, asset: string) => Promise<unknown>,
): ((ownerId: string, asset: string) => Promise<void>) =>
  process.env.PLATFORM_MODE === 'local'
    ? local!.payoutTrigger(async (ownerId, asset) => {
        const { payoutRunnerFunction } = await import('#functions/payments/routes.js');
        return withGrantedTables(tableGrant(payoutRunnerFunction.name, Object.keys(routeTables(payoutRunnerFunction))), () => run(ownerId, asset));
      })
    : lambdaPayoutTrigger(settings.payments.payoutFunctionName);

export function solanaDevTools({ local }: Platform): SolanaDevTools {
  if (process.env.PLATFORM_MODE !== 'local') throw new Error('the faucet and the Solana RPC endpoint exist in local mode only');
  return local!.solanaDevTools;
}
