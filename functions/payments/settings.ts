// The payments area's settings, parsed once per start by the composition root (functions/app/platform.ts).
import * as z from 'zod';
import { envNames } from '#platform/env-names.js';
import { envNumber } from '#platform/settings.js';
import { type SolanaNetwork, networks } from './networks.js';

/** Used when SOL_PRICE_USD is unset: an order of magnitude, not a quote; operators set the real rate. */
const defaultSolPriceUsd = 150;
/** Ten dollars: a payout's fee is a fraction of a cent, and owners see money within the hour anyway. */
const defaultPayoutThresholdUsdc = 10;

const publicRpcUrls: Record<SolanaNetwork, string> = {
  solana: 'https://api.mainnet-beta.solana.com',
  'solana-devnet': 'https://api.devnet.solana.com',
};

/** An unset or empty variable is no value. */
const optionalText = z
  .string()
  .optional()
  .transform((value) => value || undefined);

export const paymentSettingsSchema = z
  .object({
    [envNames.platformMode]: z.string().optional(),
    [envNames.solanaNetwork]: z.enum(networks).default('solana-devnet'),
    [envNames.solanaRpcUrl]: z.string().optional(),
    [envNames.feePayerAddress]: optionalText,
    [envNames.feePayerSecretArn]: optionalText,
    [envNames.walletSecretArn]: optionalText,
    [envNames.platformWalletAddress]: optionalText,
    [envNames.payoutThresholdUsdc]: envNumber(defaultPayoutThresholdUsdc).pipe(z.number().positive()),
    [envNames.payoutFunctionName]: optionalText,
    [envNames.payoutIntervalSeconds]: z.string().optional(),
    [envNames.solPriceUsd]: envNumber(defaultSolPriceUsd).pipe(z.number().positive()),
  })
  .transform((env) => {
    // Local mode always presents itself as devnet.
    const network: SolanaNetwork = env[envNames.platformMode] === 'local' ? 'solana-devnet' : env[envNames.solanaNetwork];
    const interval = Number(env[envNames.payoutIntervalSeconds] ?? 3600);
    return {
      network,
      rpcUrl: env[envNames.solanaRpcUrl] ?? publicRpcUrls[network],
      /** The fee payer's public address (stack context): offers name it without reading its secret. */
      feePayerAddress: env[envNames.feePayerAddress],
      /** The fee payer's keypair, granted by the `feePayer` capability to the functions that co-sign and pay out. */
      feePayerSecretArn: env[envNames.feePayerSecretArn],
      /** The platform wallet's keypair, granted by the `platformWallet` capability; payouts sign with it. */
      platformWalletSecretArn: env[envNames.walletSecretArn],
      /** The platform wallet's public address (stack context), so offers need no secret. */
      platformWalletAddress: env[envNames.platformWalletAddress],
      /** Owed USDC of one owner that is paid out at once rather than at the next scheduled run. */
      payoutThresholdUsdc: env[envNames.payoutThresholdUsdc],
      /** The payout function a threshold crossing invokes on AWS. */
      payoutFunctionName: env[envNames.payoutFunctionName],
      /** Local mode's payout schedule; 0 leaves payouts to the threshold and POST /api/x402/dev/payouts. */
      localPayoutIntervalSeconds: Number.isFinite(interval) && interval >= 0 ? interval : 3600,
      /** USD per SOL for pricing calls in the native coin. */
      solPriceUsd: env[envNames.solPriceUsd],
    };
  });

export type PaymentSettings = z.output<typeof paymentSettingsSchema>;

/**
 * The interface's maxTimeoutSeconds bounds the work after payment. API Gateway gives up after 30 s, so confirmation
 * and the resource call together must fit well inside that.
 */
export const maxTimeoutSeconds = 25;
