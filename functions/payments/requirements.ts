// The interface's payment requirements for one method of one resource: one offer per asset, USDC first.
import type { BazaarExtension } from './bazaar.js';
import type { LedgerInfo } from './ports.js';
import {
  type SolanaNetwork,
  nativeSolMint,
  networkName,
  serverFeePercentage,
  solDecimals,
  splitAmount,
  usdToLamports,
  usdToUsdc,
  usdcDecimals,
} from './networks.js';
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
  /** The owner accepts payments held by the platform and paid out later (their `splitOfferOnly` setting is off). */
  payoutOffer: boolean;
  /** Lamports the owner's wallet holds and the network's rent-exempt minimum: a SOL share below it cannot land. */
  ownerLamports: bigint;
  rentExemptMinimum: bigint;
}

/**
 * The offers of one paid call, in the order reference clients read them (they take the first they can pay):
 * the payout offer in USDC (unless the owner opted out), then the interface's split offers in USDC and, when the owner's
 * wallet stays rent-exempt after receiving its share, SOL. Reference clients pay SPL tokens only, so SOL has no payout offer.
 */
export function buildRequirements({
  resource,
  method,
  seller,
  baseUrl,
  ledger,
  solPriceUsd,
  payoutOffer,
  ownerLamports,
  rentExemptMinimum,
}: OfferContext): PaymentRequirement[] {
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
  const usdc = { maxAmountRequired: usdToUsdc(method.priceUsd).toString(), asset: ledger.usdcMint };
  const lamports = usdToLamports(method.priceUsd, solPriceUsd);
  const offers: PaymentRequirement[] = [];
  if (payoutOffer) {
    offers.push({
      ...common,
      ...usdc,
      payTo: ledger.platformWallet,
      extra: { ...extra, decimals: usdcDecimals, symbol: 'USDC', settlement: 'payout', feePayer: ledger.feePayer },
    });
  }
  offers.push({ ...common, ...usdc, extra: { ...extra, decimals: usdcDecimals, symbol: 'USDC', settlement: 'split' } });
  if (ownerLamports + splitAmount(lamports).agentOwnerAmount >= rentExemptMinimum) {
    offers.push({
      ...common,
      maxAmountRequired: lamports.toString(),
      asset: nativeSolMint,
      extra: { ...extra, decimals: solDecimals, symbol: 'SOL', settlement: 'split' },
    });
  }
  return offers;
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

/**
 * The offers as x402 v2's PaymentRequired carries them (the PAYMENT-REQUIRED header, the MCP tool result), with the
 * `bazaar` discovery extension; `resource` describes where it is paid when not at the offers' URL (the MCP server).
 */
export const toV2PaymentRequired = (
  accepts: PaymentRequirement[],
  error: string,
  bazaar: BazaarExtension,
  resource: ReturnType<typeof resourceInfo> = resourceInfo(accepts[0]!),
) => ({
  x402Version: 2,
  error,
  resource,
  accepts: accepts.map(toV2Requirement),
  extensions: { bazaar },
});
