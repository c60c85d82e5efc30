// Payment settings read from the environment on each access, like functions/platform/config.ts.
import { settings } from '#platform/settings.js';
import { type SolanaNetwork, networks } from './networks.js';
import { envNames } from '#platform/env-names.js';
import { readEnv } from '#platform/settings.js';

/** Used when SOL_PRICE_USD is unset: an order of magnitude, not a quote; operators set the real rate. */
const defaultSolPriceUsd = 150;

const publicRpcUrls: Record<SolanaNetwork, string> = {
  solana: 'https://api.mainnet-beta.solana.com',
  'solana-devnet': 'https://api.devnet.solana.com',
};

export const paymentSettings = {
  /** Local mode always presents itself as devnet (DESIGN.md §3); AWS reads SOLANA_NETWORK, devnet by default. */
  get network(): SolanaNetwork {
    if (settings.mode === 'local') return 'solana-devnet';
    const wanted = readEnv(envNames.solanaNetwork) ?? 'solana-devnet';
    if (!(networks as readonly string[]).includes(wanted)) throw new Error(`SOLANA_NETWORK must be one of ${networks.join(', ')}, not ${wanted}`);
    return wanted as SolanaNetwork;
  },
  get rpcUrl(): string {
    return readEnv(envNames.solanaRpcUrl) ?? publicRpcUrls[this.network];
  },
  /** USD per SOL for pricing calls in the native coin. */
  get solPriceUsd(): number {
    const price = Number(readEnv(envNames.solPriceUsd) ?? defaultSolPriceUsd);
    if (!Number.isFinite(price) || price <= 0) throw new Error(`SOL_PRICE_USD must be a positive number, not ${readEnv(envNames.solPriceUsd)}`);
    return price;
  },
};

/**
 * SPEC.md's maxTimeoutSeconds bounds the work after payment. API Gateway gives up after 30 s, so confirmation
 * and the resource call together must fit well inside that.
 */
export const maxTimeoutSeconds = 25;
