import { z } from 'zod';
import { ReviewList, Review } from '#functions/marketplace/schemas.js';
import { defineRoutes } from '#platform/route.js';
import { IsoDate, Message } from '#platform/schemas.js';
import {
  AuthenticateInput, CallResourceInput, CreateResourceInput, InstallationId, InstallationIdInput, ListInstallationsInput, ListResourcesInput,
  ListReviewsInput, MarketplaceInput, OAuthCallbackInput, PublishResourceInput, ResourceIdInput, ReviewInput, UpdateResourceInput,
} from './schemas.js';
import { resourceCallTables } from './call-tables.js';

/** Changing resources and installations takes a full key (`*`), or `resources:manage` once keys can hold it. */
const manage = ['resources:manage'];

const Installation = z.object({
  installationId: z.string(), resourceId: z.string(), userId: z.string(), isAuthenticated: z.boolean(), status: z.literal('active'), installedAt: IsoDate, version: z.number(),
});
const ResourceRecord = z.object({
  id: z.string(), name: z.string(), description: z.string(), resourceType: z.string(), category: z.string().nullable(), tags: z.array(z.string()),
  status: z.enum(['draft', 'published']), ownerId: z.string(), version: z.number(), endpoint: z.record(z.string(), z.unknown()),
  openApiSpec: z.record(z.string(), z.unknown()).nullable(), pricing: z.record(z.string(), z.unknown()), rateLimits: z.array(z.object({ window: z.string(), limit: z.number() })),
  rating: z.number(), reviewCount: z.number(), installCount: z.number(), createdAt: IsoDate, updatedAt: IsoDate, publishedAt: IsoDate.nullable(),
});
const CallResult = z.object({ status: z.number(), success: z.boolean(), data: z.unknown(), cost: z.number(), durationMs: z.number() });

/** Seeing a resource may ask whether the caller installed it (functions/resources/access.ts). */
const seeResource = { resources: 'read', resourceInstallations: 'read' } as const;
const changeResource = { resources: 'write', resourceInstallations: 'read' } as const;
const installations = { resourceInstallations: 'write', resourceVersions: 'read', resources: 'read' } as const;

export const resourceRoutes = defineRoutes('resources', {
  createResource: {
    method: 'POST', path: '/api/sdk/v1/resources', auth: 'apiKey', scopes: manage, summary: 'Create a resource (draft)',
    input: CreateResourceInput, successStatus: 201, tables: { resources: 'write', resourceVersions: 'write' },
    output: z.object({ id: z.string(), name: z.string(), resourceType: z.string(), status: z.literal('draft'), createdAt: IsoDate }),
  },
  listResources: {
    method: 'GET', path: '/api/sdk/v1/resources', auth: 'apiKey', summary: "The caller's own resources, drafts included",
    input: ListResourcesInput, tables: { resources: 'read' },
  },
  getResource: {
    method: 'GET', path: '/api/sdk/v1/resources/{resourceId}', auth: 'apiKey', summary: 'One resource: the creator sees drafts, others published ones and those they installed',
    input: ResourceIdInput, output: ResourceRecord, tables: seeResource,
  },
  updateResource: {
    method: 'PATCH', path: '/api/sdk/v1/resources/{resourceId}', auth: 'apiKey', scopes: manage,
    summary: 'Change description, pricing, methods, OpenAPI document and more; definition changes make a new version, installations keep theirs',
    input: UpdateResourceInput, output: ResourceRecord, tables: { ...changeResource, resourceVersions: 'write' },
  },
  deleteResource: {
    method: 'DELETE', path: '/api/sdk/v1/resources/{resourceId}', auth: 'apiKey', scopes: manage, summary: 'Delete a resource; refused while installations are active',
    input: ResourceIdInput, output: Message, tables: { ...changeResource, resourceVersions: 'write' },
  },
  publishResource: {
    method: 'POST', path: '/api/sdk/v1/resources/{resourceId}/publish', auth: 'apiKey', scopes: manage, summary: 'Publish after checking the endpoint, its OpenAPI document and the declared path parameters',
    input: PublishResourceInput, output: z.object({ id: z.string(), status: z.literal('published'), publishedAt: IsoDate }), tables: { ...changeResource, resourceVersions: 'write' },
  },
  unpublishResource: {
    method: 'POST', path: '/api/sdk/v1/resources/{resourceId}/unpublish', auth: 'apiKey', scopes: manage, summary: 'Back to draft; existing installations keep working',
    input: ResourceIdInput, output: z.object({ id: z.string(), status: z.literal('draft') }), tables: changeResource,
  },
  listMarketplaceResources: {
    method: 'GET', path: '/api/sdk/v1/resources/marketplace', auth: 'apiKey', summary: 'Published resources by category, tags and search over name and description',
    input: MarketplaceInput, tables: { resources: 'read' },
  },
  installResource: {
    method: 'POST', path: '/api/sdk/v1/resources/{resourceId}/install', auth: 'apiKey', scopes: manage,
    summary: 'Install a published resource (webhook resources also get their receive URL and signing secret, shown once)',
    input: ResourceIdInput, output: Installation.extend({ webhookUrl: z.string().optional(), webhookSecret: z.string().optional() }), successStatus: 201,
    tables: { resources: 'write', resourceInstallations: 'write' }, uses: ['credentialsKey'],
  },
  uninstallResource: {
    method: 'DELETE', path: '/api/sdk/v1/resources/{resourceId}/install', auth: 'apiKey', scopes: manage, summary: 'Uninstall; the stored credentials are removed',
    input: ResourceIdInput, output: Message, tables: { resources: 'write', resourceInstallations: 'write' },
  },
  authenticateResource: {
    method: 'POST', path: '/api/sdk/v1/resources/{resourceId}/authenticate', auth: 'apiKey', scopes: manage,
    summary: 'Store credentials for an installation (encrypted; never returned). oauth2 with a client starts the authorization-code flow',
    input: AuthenticateInput, tables: { ...installations, resourceOAuthStates: 'write' }, uses: ['credentialsKey'],
  },
  authorizeResourceOAuth: {
    method: 'POST', path: '/api/sdk/v1/resources/{resourceId}/oauth/authorize', auth: 'apiKey', scopes: manage, summary: 'Start (again) the OAuth2 authorization-code flow',
    input: ResourceIdInput, output: z.object({ authorizationUrl: z.string(), state: z.string() }), tables: { ...installations, resourceOAuthStates: 'write' }, uses: ['credentialsKey'],
  },
  completeResourceOAuth: {
    method: 'GET', path: '/api/sdk/v1/resources/oauth/callback', auth: 'public', summary: 'OAuth2 redirect target: exchanges the code for tokens',
    input: OAuthCallbackInput, tables: { ...installations, resourceOAuthStates: 'write' }, uses: ['credentialsKey'],
  },
  listInstallations: {
    method: 'GET', path: '/api/sdk/v1/resources/installations', auth: 'apiKey', summary: "The caller's installations",
    input: ListInstallationsInput, tables: { resourceInstallations: 'read', resources: 'read' },
  },
  getInstallationUsage: {
    method: 'GET', path: '/api/sdk/v1/resources/installations/{installationId}/usage', auth: 'apiKey', summary: 'Calls, cost and recent calls of an installation',
    input: InstallationIdInput, tables: { resourceInstallations: 'read' },
  },
  upgradeInstallation: {
    method: 'POST', path: '/api/sdk/v1/resources/installations/{installationId}/upgrade', auth: 'apiKey', scopes: manage, summary: "Move an installation to the resource's current version",
    input: InstallationIdInput, output: Installation.extend({ previousVersion: z.number() }), tables: installations,
  },
  getResourceMetrics: {
    method: 'GET', path: '/api/sdk/v1/resources/{resourceId}/metrics', auth: 'apiKey', summary: 'Creator-only metrics',
    input: ResourceIdInput, tables: seeResource,
    output: z.object({
      resourceId: z.string(), totalUsers: z.number(), totalCalls: z.number(), failedCalls: z.number(), errorRate: z.number(), totalRevenue: z.number(),
      rating: z.number(), reviewCount: z.number(), installCount: z.number(),
    }),
  },
  callResource: {
    method: 'POST', path: '/api/sdk/v1/resources/{resourceId}/call', auth: 'apiKey', scopes: ['resources:call', 'resources:{resourceId}:call'],
    summary: "Call a method of an installed resource with the caller's stored credentials",
    input: CallResourceInput, output: CallResult, uses: ['credentialsKey'],
    tables: resourceCallTables,
  },
  receiveResourceWebhook: {
    method: 'POST', path: '/api/webhooks/resources/{installationId}', auth: 'public', summary: 'Receive URL of an installed webhook resource (HMAC-SHA256 signature required)',
    input: z.object({ installationId: InstallationId }), uses: ['credentialsKey', 'eventBus'],
    tables: { resourceInstallations: 'write', resourceVersions: 'read' },
  },
  createResourceReview: {
    method: 'POST', path: '/api/sdk/v1/resources/{resourceId}/reviews', auth: 'apiKey', scopes: manage, summary: 'Review an installed resource (one review per user)',
    input: ReviewInput, output: Review, successStatus: 201, tables: { resources: 'write', resourceInstallations: 'read', reviews: 'write' },
  },
  listResourceReviews: {
    method: 'GET', path: '/api/sdk/v1/resources/{resourceId}/reviews', auth: 'apiKey', summary: 'Reviews of a resource, newest first',
    input: ListReviewsInput, output: ReviewList, tables: { ...seeResource, reviews: 'read' },
  },
});
