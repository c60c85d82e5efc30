// SPEC.md's payment requirements for one method of one resource: one offer per asset, USDC first.
import type { LedgerInfo } from './ledger.js';
import { type SolanaNetwork, nativeSolMint, networkName, serverFeePercentage, solDecimals, usdToLamports, usdToUsdc, usdcDecimals } from './networks.js';
import type { MethodForSale, ResourceForSale } from './resources-port.js';
import type { PaymentRequirement } from './schemas.js';
import { maxTimeoutSeconds } from './settings.js';

const paidCallPath = (resourceId: string, methodName: string) => `/api/x402/resources/${encodeURIComponent(resourceId)}/${encodeURIComponent(methodName)}`;

/** The resource id and method of a paid-call URL, if it is one. */
export function parsePaidCallUrl(url: string): { origin: string; resourceId: string; methodName: string } | undefined {
  try {
    const parsed = new URL(url);
    const match = /^\/api\/x402\/resources\/([^/]+)\/([^/]+)$/.exec(parsed.pathname);
    return match ? { origin: parsed.origin, resourceId: decodeURIComponent(match[1]!), methodName: decodeURIComponent(match[2]!) } : undefined;
  } catch {
    return undefined;
  }
}

export interface OfferContext {
  resource: ResourceForSale;
  method: MethodForSale;
  seller: { userId: string; username: string; walletAddress: string };
  baseUrl: string;
  ledger: LedgerInfo;
  solPriceUsd: number;
}

export function buildRequirements({ resource, method, seller, baseUrl, ledger, solPriceUsd }: OfferContext): PaymentRequirement[] {
  const common = {
    scheme: 'exact' as const,
    network: ledger.network,
    resource: `${baseUrl}${paidCallPath(resource.resourceId, method.name)}`,
    description: `${resource.name}: ${method.description ?? resource.description}`,
    mimeType: 'application/json',
    payTo: seller.walletAddress,
    maxTimeoutSeconds,
  };
  const extra = {
    agentOwner: { username: seller.username, userId: seller.userId, walletAddress: seller.walletAddress },
    serverFeePercentage,
    serverWalletAddress: ledger.platformWallet,
  };
  return [
    { ...common, maxAmountRequired: usdToUsdc(method.priceUsd).toString(), asset: ledger.usdcMint, extra: { ...extra, decimals: usdcDecimals, symbol: 'USDC' } },
    { ...common, maxAmountRequired: usdToLamports(method.priceUsd, solPriceUsd).toString(), asset: nativeSolMint, extra: { ...extra, decimals: solDecimals, symbol: 'SOL' } },
  ];
}

/** One offer as x402 v2 writes it: CAIP-2 network, `amount`, the resource described apart. */
export const toV2Requirement = (offer: PaymentRequirement) => ({
  scheme: offer.scheme,
  network: networkName(offer.network as SolanaNetwork, 2),
  amount: offer.maxAmountRequired,
  asset: offer.asset,
  payTo: offer.payTo,
  maxTimeoutSeconds: offer.maxTimeoutSeconds,
  extra: offer.extra,
});

export const resourceInfo = (offer: PaymentRequirement) => ({ url: offer.resource, description: offer.description, mimeType: offer.mimeType });

/** The offers as x402 v2's PAYMENT-REQUIRED header carries them. */
export const toV2PaymentRequired = (accepts: PaymentRequirement[], error: string) => ({ x402Version: 2, error, resource: resourceInfo(accepts[0]!), accepts: accepts.map(toV2Requirement) });
