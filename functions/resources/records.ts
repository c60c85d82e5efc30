// What the resources area stores (functions/resources/tables.ts), and the public views of it.
import { averageRating } from '#functions/reviews/api.js';
import type { SealedSecret } from '#platform/ports.js';
import type { MethodDefinition } from './method-definitions.js';
import type { AuthenticationType, CredentialType, EndpointInput, Pricing, RateLimit, ResourceType } from './schemas.js';

export type ResourceStatus = 'draft' | 'published';

export interface Endpoint {
  baseUrl?: string;
  authentication: AuthenticationType;
  authConfig?: NonNullable<EndpointInput['authConfig']>;
  methods: MethodDefinition[];
  callbackUrl?: string;
  events?: string[];
  signatureHeader?: string;
  timeoutSeconds?: number;
}

/** What changes make a new version: everything a call depends on. */
export interface ResourceDefinition {
  resourceType: ResourceType;
  endpoint: Endpoint;
  openApiSpec?: Record<string, unknown>;
  pricing: Pricing;
  rateLimits: RateLimit[];
}

export interface ResourceItem extends ResourceDefinition {
  resourceId: string;
  ownerId: string;
  name: string;
  description: string;
  category?: string;
  tags: string[];
  status: ResourceStatus;
  /** Set only while published: the key of the sparse marketplace index. */
  listing?: 'published';
  version: number;
  installCount: number;
  ratingSum: number;
  reviewCount: number;
  /**
   * Calls no active installation holds: those of uninstalled installations (folded in at uninstall) and x402 calls
   * made without the owner's installation. Active installations count their own, so calls never write this item.
   */
  retiredCalls: number;
  retiredFailedCalls: number;
  /** USD: x402 payments (recordRevenue) plus what uninstalled installations were charged. */
  revenueUsd: number;
  createdAt: string;
  updatedAt: string;
  publishedAt?: string;
}

export interface ResourceVersion extends ResourceDefinition {
  resourceId: string;
  version: number;
  createdAt: string;
}

export interface InstallationItem {
  userId: string;
  resourceId: string;
  installationId: string;
  /** The resource's name, which never changes: `resources[name]` in scripts looks installations up by it. */
  resourceName: string;
  resourceOwnerId: string;
  version: number;
  status: 'active';
  isAuthenticated: boolean;
  installedAt: string;
  authenticatedAt?: string;
  lastUsedAt?: string;
  credentialType?: CredentialType;
  credentials?: SealedSecret;
  /** Webhook resources: the HMAC key of this installation's receive URL. */
  webhookSecret?: SealedSecret;
  totalCalls: number;
  failedCalls: number;
  /** USD charged to this installation: the resource's revenue from it. */
  totalCost: number;
  /** Oldest first; cut back to the newest `recentCallsKept` every `recentCallsSlack` calls or so. */
  recentCalls: RecentCall[];
  /** Calls per UTC day (`YYYY-MM-DD`); only the current day is kept. */
  dailyCalls: Record<string, number>;
}

/** One call as recentCalls keeps it: the interface's fields only, since every call rewrites the installation item. */
export interface RecentCall {
  timestamp: string;
  method: string;
  cost: number;
  /** Milliseconds. */
  duration: number;
  success: boolean;
}

const rating = (item: ResourceItem) => averageRating(item.ratingSum, item.reviewCount);

/** What every view of a resource shows, the marketplace's included. */
const listingFields = (item: ResourceItem) => ({
  id: item.resourceId,
  name: item.name,
  description: item.description,
  resourceType: item.resourceType,
  category: item.category ?? null,
  tags: item.tags,
  rating: rating(item),
  reviewCount: item.reviewCount,
  installCount: item.installCount,
  publishedAt: item.publishedAt ?? null,
});

/** The full record; counters other than public ones only for the owner. */
export function resourceView(item: ResourceItem) {
  return {
    ...listingFields(item),
    status: item.status,
    ownerId: item.ownerId,
    version: item.version,
    endpoint: item.endpoint,
    openApiSpec: item.openApiSpec ?? null,
    pricing: item.pricing,
    rateLimits: item.rateLimits,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

/** An item of the owner's own list. */
export const summaryView = (item: ResourceItem) => ({
  id: item.resourceId,
  name: item.name,
  description: item.description,
  resourceType: item.resourceType,
  category: item.category ?? null,
  status: item.status,
  version: item.version,
  installCount: item.installCount,
  rating: rating(item),
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
  publishedAt: item.publishedAt ?? null,
});

export function marketplaceView(item: ResourceItem) {
  return { ...listingFields(item), pricing: { model: item.pricing.model, basePrice: item.pricing.basePrice ?? 0 } };
}

export function installationView(item: InstallationItem) {
  return {
    installationId: item.installationId,
    resourceId: item.resourceId,
    userId: item.userId,
    isAuthenticated: item.isAuthenticated,
    status: item.status,
    installedAt: item.installedAt,
    version: item.version,
  };
}
