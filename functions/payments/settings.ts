// Payment settings read from the environment on each access, like functions/platform/config.ts.
import { settings } from '#platform/settings.js';
import { type SolanaNetwork, networks } from './networks.js';
import { envNames } from '#platform/env-names.js';
import { readEnv } from '#platform/settings.js';

/** Used when SOL_PRICE_USD is unset: an order of magnitude, not a quote; operators set the real rate. */
const defaultSolPriceUsd = 150;
/** Ten dollars: a payout's fee is a fraction of a cent, and owners see money within the hour anyway. */
const defaultPayoutThresholdUsdc = 10;

const publicRpcUrls: Record<SolanaNetwork, string> = {
  solana: 'https://api.mainnet-beta.solana.com',
  'solana-devnet': 'https://api.devnet.solana.com',
};

export const paymentSettings = {
  /** Local mode always presents itself as devnet; AWS reads SOLANA_NETWORK, devnet by default. */
  get network(): SolanaNetwork {
    if (settings.mode === 'local') return 'solana-devnet';
    const wanted = readEnv(envNames.solanaNetwork) ?? 'solana-devnet';
    if (!(networks as readonly string[]).includes(wanted)) throw new Error(`SOLANA_NETWORK must be one of ${networks.join(', ')}, not ${wanted}`);
    return wanted as SolanaNetwork;
  },
  get rpcUrl(): string {
    return readEnv(envNames.solanaRpcUrl) ?? publicRpcUrls[this.network];
  },
  /** The fee payer's public address (stack context): offers name it without reading its secret. */
  get feePayerAddress(): string | undefined {
    return readEnv(envNames.feePayerAddress) || undefined;
  },
  /** The fee payer's keypair, granted by the `feePayer` capability to the functions that co-sign and pay out. */
  get feePayerSecretArn(): string | undefined {
    return readEnv(envNames.feePayerSecretArn) || undefined;
  },
  /** The platform wallet's keypair, granted by the `platformWallet` capability; payouts sign with it. */
  get platformWalletSecretArn(): string | undefined {
    return readEnv(envNames.walletSecretArn) || undefined;
  },
  /** The platform wallet's public address (stack context), so offers need no secret. */
  get platformWalletAddress(): string | undefined {
    return readEnv(envNames.platformWalletAddress) || undefined;
  },
  /** Owed USDC of one owner that is paid out at once rather than at the next scheduled run. */
  get payoutThresholdUsdc(): number {
    const threshold = Number(readEnv(envNames.payoutThresholdUsdc) ?? defaultPayoutThresholdUsdc);
    if (!Number.isFinite(threshold) || threshold <= 0)
      throw new Error(`PAYOUT_THRESHOLD_USDC must be a positive number, not ${readEnv(envNames.payoutThresholdUsdc)}`);
    return threshold;
  },
  /** The payout function a threshold crossing invokes on AWS. */
  get payoutFunctionName(): string | undefined {
    return readEnv(envNames.payoutFunctionName) || undefined;
  },
  /** Local mode's payout schedule; 0 leaves payouts to the threshold and POST /api/x402/dev/payouts. */
  get localPayoutIntervalSeconds(): number {
    const seconds = Number(readEnv(envNames.payoutIntervalSeconds) ?? 3600);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds : 3600;
  },
  /** USD per SOL for pricing calls in the native coin. */
  get solPriceUsd(): number {
    const price = Number(readEnv(envNames.solPriceUsd) ?? defaultSolPriceUsd);
    if (!Number.isFinite(price) || price <= 0) throw new Error(`SOL_PRICE_USD must be a positive number, not ${readEnv(envNames.solPriceUsd)}`);
    return price;
  },
};

/**
 * The interface's maxTimeoutSeconds bounds the work after payment. API Gateway gives up after 30 s, so confirmation
 * and the resource call together must fit well inside that.
 */
export const maxTimeoutSeconds = 25;
