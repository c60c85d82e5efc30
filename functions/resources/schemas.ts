// Inputs of the resources area (Resources and their fields). Both method-definition dialects are
// accepted and normalised here: `httpMethod` or `method`, parameters as a map or an array.
import * as z from 'zod';
import { reviewFields } from '#functions/reviews/schemas.js';
import { JsonObject, OpaqueId, pagination } from '#platform/schemas.js';
import { type MethodDefinition, normalizeMethod } from './method-definitions.js';

export const resourceTypes = ['api', 'llm', 'script', 'integration', 'api_endpoint', 'data_source', 'webhook'] as const;
export const authenticationTypes = ['none', 'api_key', 'bearer', 'basic', 'oauth2', 'signature'] as const;
export const credentialTypes = ['api_key', 'bearer', 'basic', 'oauth2'] as const;
export const httpVerbs = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export const pricingModels = ['free', 'pay-per-call', 'pay-per-use', 'subscription', 'tiered'] as const;
export const rateWindowSeconds = { '1m': 60, '1h': 3600, '1d': 86_400 } as const;

/** A DynamoDB item holds 400 KB, and the resource and its version snapshot each carry the document. */
const maxOpenApiBytes = 200 * 1024;

export type ResourceType = (typeof resourceTypes)[number];
export type AuthenticationType = (typeof authenticationTypes)[number];
export type CredentialType = (typeof credentialTypes)[number];

const isHttpUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
const HttpUrl = z.string().max(2048).refine(isHttpUrl, 'must be an http or https URL');
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'must be an HTTP header name');
export const ResourceId = OpaqueId;
export const InstallationId = OpaqueId;
const Tags = z.array(z.string().trim().min(1).max(40)).max(20);
const Category = z.string().trim().min(1).max(60);

const HttpVerb = z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(httpVerbs));

const parameterFields = {
  type: z.string().min(1).max(40).default('string'),
  required: z.boolean().default(false),
  description: z.string().max(1000).optional(),
  /** Where the value goes; by default path placeholders, then query for GET/DELETE/HEAD and the JSON body otherwise. */
  in: z.enum(['path', 'query', 'body', 'header']).optional(),
};
const ParameterName = z.string().min(1).max(100);

export const MethodInput = z
  .object({
    name: z.string().min(1).max(100),
    httpMethod: HttpVerb.optional(),
    method: HttpVerb.optional(),
    path: z.string().max(2000).default('/'),
    description: z.string().max(2000).optional(),
    parameters: z
      .union([z.array(z.object({ name: ParameterName, ...parameterFields })).max(50), z.record(ParameterName, z.object(parameterFields))])
      .optional(),
    response: z.record(z.string(), z.unknown()).optional(),
    cost: z.number().min(0).max(1_000_000).optional(),
  })
  .transform((method): MethodDefinition => normalizeMethod(method));

const AuthConfig = z.object({
  authUrl: HttpUrl.optional(),
  tokenUrl: HttpUrl.optional(),
  scopes: z.array(z.string().min(1).max(200)).max(50).optional(),
  /** api_key: header carrying the key (default X-API-Key) ... */
  headerName: HeaderName.optional(),
  /** ... or query parameter carrying it instead. */
  queryParam: z.string().min(1).max(100).optional(),
});

const endpointFields = {
  baseUrl: HttpUrl,
  authentication: z.enum(authenticationTypes),
  authConfig: AuthConfig,
  methods: z.array(MethodInput).max(100),
  callbackUrl: HttpUrl,
  events: z.array(z.string().min(1).max(200)).max(100),
  signatureHeader: HeaderName,
  /** Upstream deadline; 30 s unless the resource says otherwise. */
  timeoutSeconds: z.number().int().min(1).max(120),
};

export const Pricing = z.object({
  model: z.enum(pricingModels),
  basePrice: z.number().min(0).max(1_000_000).optional(),
  monthlyPrice: z.number().min(0).max(1_000_000).optional(),
  currency: z.string().min(1).max(10).default('USDC'),
});
export type Pricing = z.infer<typeof Pricing>;

export const RateLimits = z
  .array(z.object({ window: z.enum(['1m', '1h', '1d']), limit: z.number().int().min(1).max(10_000_000) }))
  .max(3)
  .refine((limits) => new Set(limits.map((limit) => limit.window)).size === limits.length, 'one limit per window');
export type RateLimit = z.infer<typeof RateLimits>[number];

const OpenApiSpec = z
  .record(z.string(), z.unknown())
  .refine((spec) => Buffer.byteLength(JSON.stringify(spec)) <= maxOpenApiBytes, `must be at most ${maxOpenApiBytes} bytes`);

export const EndpointInput = z.object(endpointFields).partial();
export type EndpointInput = z.infer<typeof EndpointInput>;

export const CreateResourceInput = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().min(1).max(2000),
  resourceType: z.enum(resourceTypes),
  category: Category.optional(),
  tags: Tags.optional(),
  openApiSpec: OpenApiSpec.optional(),
  endpoint: EndpointInput,
  pricing: Pricing.optional(),
  rateLimits: RateLimits.optional(),
});
export type CreateResourceInput = z.infer<typeof CreateResourceInput>;

export const ResourceIdInput = z.object({ resourceId: ResourceId });
export const InstallationIdInput = z.object({ installationId: InstallationId });

export const UpdateResourceInput = z
  .object({
    resourceId: ResourceId,
    description: z.string().trim().min(1).max(2000).optional(),
    category: Category.optional(),
    tags: Tags.optional(),
    pricing: Pricing.optional(),
    methods: z.array(MethodInput).max(100).optional(),
    openApiSpec: OpenApiSpec.optional(),
    endpoint: EndpointInput.optional(),
    rateLimits: RateLimits.optional(),
  })
  .refine(({ resourceId: _id, ...changes }) => Object.values(changes).some((value) => value !== undefined), {
    message: 'give at least one of description, category, tags, pricing, methods, openApiSpec, endpoint, rateLimits',
  })
  .refine((input) => !(input.methods && input.endpoint?.methods), { message: 'give methods once: top-level or in endpoint', path: ['methods'] });
export type UpdateResourceInput = z.infer<typeof UpdateResourceInput>;

export const PublishResourceInput = z.object({ resourceId: ResourceId, pricing: Pricing.optional(), category: Category.optional(), tags: Tags.optional() });

/** API Gateway joins a repeated query parameter with commas, so `tags=a&tags=b` and `tags=a,b` arrive alike. */
const TagsQuery = z.preprocess(
  (value) =>
    value === undefined
      ? undefined
      : (Array.isArray(value) ? value : [value])
          .flatMap((tag) => String(tag).split(','))
          .map((tag) => tag.trim())
          .filter(Boolean),
  z.array(z.string().max(40)).max(20).optional(),
);

export const MarketplaceInput = z.object({
  category: z.string().max(60).optional(),
  tags: TagsQuery,
  search: z.string().max(200).optional(),
  ...pagination(10),
});

export const ListResourcesInput = z.object({ status: z.enum(['draft', 'published']).optional(), ...pagination(10) });
export const ListInstallationsInput = z.object(pagination(10));

/** Credentials are checked per type in the service, so that a refusal never echoes a secret back. */
export const AuthenticateInput = z.object({
  resourceId: ResourceId,
  type: z.enum(credentialTypes),
  credentials: z.record(z.string(), z.unknown()),
});

export const CallResourceInput = z.object({
  resourceId: ResourceId,
  method: z.string().min(1).max(100),
  params: JsonObject.default({}),
});

export const OAuthCallbackInput = z.object({
  state: z.string().min(1).max(200),
  code: z.string().min(1).max(4000).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
});

export const ReviewInput = z.object({ resourceId: ResourceId, ...reviewFields });
export const ListReviewsInput = z.object({ resourceId: ResourceId, ...pagination(10) });
