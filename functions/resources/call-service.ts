// Calling a resource method: the ResourceCaller port that scripts, flows and payments use, and the REST call route.
// Builds the request from the installed version's method definition, injects the caller's credentials (refreshing
// OAuth2 tokens before expiry and once more on a 401), enforces the resource's rate limits, goes out through the
// outbound guard, and records usage.
import type { Clock } from '#platform/clock.js';
import { AppError, ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { logger } from '#platform/logger.js';
import { type OutboundResponse, defaultOutboundTimeoutMs, type outboundRequest, responseData } from '#platform/outbound.js';
import type { CredentialVault, RateLimiter, ResourceCallRequest, ResourceCallResult } from '#platform/ports.js';
import type { Access } from './access.js';
import { type OAuth2Credentials, type StoredCredentials, credentialContext, openCredentials } from './credentials.js';
import type { InstallationStore } from './installation-store.js';
import { type MethodDefinition, checkParams } from './method-definitions.js';
import { needsRefresh, refreshTokens } from './oauth.js';
import type { InstallationItem, ResourceVersion } from './records.js';
import { rateWindowSeconds } from './schemas.js';
import type { ResourceStore } from './store.js';
import { buildUpstreamRequest } from './upstream-request.js';
import type { VersionCache } from './versions.js';

/** API Gateway gives up on an integration after 30 s: the REST route must answer before that. */
export const restCallDeadlineMs = 28_000;
/**
 * How old an installation read of this process a call may use (functions/resources/installation-reads.ts): saves a
 * DynamoDB round trip per call in a busy function; changes made in another function apply within this delay.
 */
const installationReuseMs = 1000;

export interface CallDeps {
  resources: ResourceStore;
  installations: InstallationStore;
  versions: VersionCache;
  access: Access;
  vault: CredentialVault;
  limiter: RateLimiter;
  clock: Clock;
  send: typeof outboundRequest;
}

/** What one execution needs, whoever asked for it. */
interface CallPlan {
  resourceId: string;
  definition: ResourceVersion;
  /** Resolved, and the params checked against it, before any rate limit counts the call. */
  method: MethodDefinition;
  params: Record<string, unknown>;
  source: ResourceCallRequest['source'];
  /** Present when usage is recorded on an installation and credentials come from it. */
  installation?: InstallationItem;
  credentials?: StoredCredentials;
  /** USD charged to the installation on success: the resource's revenue from it. */
  chargeUsd: number;
  /** What the caller is told the call costs. */
  priceUsd: number;
  maxTimeoutMs?: number;
}

/** Method `cost`, else pricing `basePrice`; free resources cost nothing. */
const priceOf = (definition: ResourceVersion, methodCost: number | undefined) =>
  definition.pricing.model === 'free' ? 0 : (methodCost ?? definition.pricing.basePrice ?? 0);

export function createCallService(deps: CallDeps) {
  const { installations, versions, access, vault, clock } = deps;

  function methodOf(definition: ResourceVersion, resourceId: string, name: string): MethodDefinition {
    if (definition.resourceType === 'webhook')
      throw new ConflictError(`resource ${resourceId} is a webhook resource: it receives events and has no methods to call`, { resourceId });
    const method = definition.endpoint.methods.find((candidate) => candidate.name === name);
    if (!method) {
      const known = definition.endpoint.methods.map((candidate) => candidate.name);
      throw new ValidationError('method', name, `resource ${resourceId} has no method ${name}; its methods: ${known.join(', ') || 'none'}`, { methods: known });
    }
    return method;
  }

  /** Every window of the resource counts this call; the first one exceeded answers 429 with its own headers. */
  async function enforceRateLimits(definition: ResourceVersion, resourceId: string, userId: string) {
    if (definition.rateLimits.length === 0) return;
    const windows = await Promise.all(
      definition.rateLimits.map(async (rule) => ({
        rule,
        window: await deps.limiter.hit(`resource:${resourceId}:${userId}:${rule.window}`, rule.limit, rateWindowSeconds[rule.window], clock.now()),
      })),
    );
    const exceeded = windows.find(({ window }) => !window.allowed);
    if (!exceeded) return;
    const { rule, window } = exceeded;
    const retryAfter = Math.max(1, window.resetAt - Math.floor(clock.now() / 1000));
    throw new TooManyRequestsError(
      'RATE_LIMITED',
      `resource ${resourceId} allows ${rule.limit} calls per ${rule.window} per user`,
      retryAfter,
      { resourceId, window: rule.window, limit: rule.limit },
      {
        'X-RateLimit-Limit': String(window.limit),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(window.resetAt),
      },
    );
  }

  async function refreshed(installation: InstallationItem, definition: ResourceVersion, credentials: OAuth2Credentials): Promise<OAuth2Credentials> {
    const tokenUrl = definition.endpoint.authConfig?.tokenUrl;
    if (!tokenUrl)
      throw new ConflictError('the access token expired and this resource has no authConfig.tokenUrl to refresh it', {
        resourceId: installation.resourceId,
        reason: 'no_token_url',
      });
    const next = await refreshTokens(tokenUrl, credentials, clock.now());
    const sealed = await vault.encrypt(next, credentialContext(installation));
    await installations.update(installation, { credentials: sealed, authenticatedAt: clock.nowIso() });
    return next;
  }

  async function record(plan: CallPlan, outcome: { success: boolean; durationMs: number }) {
    if (!plan.installation) return deps.resources.countRetiredCall(plan.resourceId, { success: outcome.success });
    const cost = outcome.success ? plan.chargeUsd : 0;
    await installations.recordCall(plan.installation, {
      timestamp: clock.nowIso(),
      method: plan.method.name,
      cost,
      duration: outcome.durationMs,
      success: outcome.success,
    });
  }

  async function execute(plan: CallPlan): Promise<ResourceCallResult> {
    const { definition, method } = plan;
    const timeoutMs = Math.min((definition.endpoint.timeoutSeconds ?? defaultOutboundTimeoutMs / 1000) * 1000, plan.maxTimeoutMs ?? Number.POSITIVE_INFINITY);
    let credentials = plan.credentials;
    const canRefresh = (value?: StoredCredentials): value is OAuth2Credentials =>
      value?.type === 'oauth2' && Boolean(value.refreshToken) && Boolean(plan.installation);
    if (canRefresh(credentials) && needsRefresh(credentials, clock.now())) credentials = await refreshed(plan.installation!, definition, credentials);
    const send = () => deps.send({ ...buildUpstreamRequest(definition.endpoint, method, plan.params, credentials), timeoutMs });

    const started = performance.now();
    let response: OutboundResponse;
    try {
      response = await send();
      if (response.status === 401 && canRefresh(credentials)) {
        credentials = await refreshed(plan.installation!, definition, credentials);
        response = await send();
      }
    } catch (error) {
      // The upstream failed (timeout, unreachable, too large): that is a failed call. Refusals before it are not.
      const durationMs = Math.round(performance.now() - started);
      if (error instanceof AppError && error.status >= 500) {
        logger.warn('resource call failed', { resourceId: plan.resourceId, method: method.name, source: plan.source, code: error.code, durationMs });
        await record(plan, { success: false, durationMs });
      }
      throw error;
    }
    const durationMs = Math.round(performance.now() - started);
    const success = response.status >= 200 && response.status < 300;
    // Ids, status and timing only: URLs and headers may carry the caller's credentials.
    logger.debug('resource call', { resourceId: plan.resourceId, method: method.name, source: plan.source, status: response.status, durationMs });
    await record(plan, { success, durationMs });
    return { status: response.status, success, data: responseData(response), cost: success ? plan.priceUsd : 0, durationMs };
  }

  async function callInstallation(installation: InstallationItem, request: Omit<ResourceCallRequest, 'resource' | 'userId'>, maxTimeoutMs?: number) {
    const definition = await versions.get(installation.resourceId, installation.version);
    const method = methodOf(definition, installation.resourceId, request.method);
    if (definition.endpoint.authentication !== 'none' && !installation.isAuthenticated) {
      throw new ConflictError(
        `resource ${installation.resourceId} uses ${definition.endpoint.authentication} credentials: authenticate it first (POST /api/sdk/v1/resources/${installation.resourceId}/authenticate)`,
        {
          resourceId: installation.resourceId,
          reason: 'not_authenticated',
        },
      );
    }
    checkParams(method, request.params);
    await enforceRateLimits(definition, installation.resourceId, installation.userId);
    const credentials = definition.endpoint.authentication === 'none' ? undefined : await openCredentials(vault, installation);
    // Creators call their own resources for free.
    const price = installation.userId === installation.resourceOwnerId ? 0 : priceOf(definition, method.cost);
    return execute({
      resourceId: installation.resourceId,
      definition,
      method,
      params: request.params,
      source: request.source,
      installation,
      credentials,
      chargeUsd: price,
      priceUsd: price,
      maxTimeoutMs,
    });
  }

  /** `resources[name]` in scripts: the resource id, or the resource's name among the user's installations. */
  async function resolveInstallation(userId: string, resource: string): Promise<InstallationItem> {
    if (/^res_[A-Za-z0-9]+$/.test(resource)) return access.installation(userId, resource, installationReuseMs);
    const named = (await installations.listByUser(userId)).filter((item) => item.resourceName === resource);
    if (named.length === 0) throw new NotFoundError('resource', resource, 'installed resource');
    if (named.length > 1) {
      throw new ConflictError(`${named.length} installed resources are named ${resource}: call it by its resource id`, {
        resource,
        resourceIds: named.map((item) => item.resourceId),
      });
    }
    return named[0]!;
  }

  return {
    /** The ResourceCaller port. */
    async call(request: ResourceCallRequest): Promise<ResourceCallResult> {
      const installation = await resolveInstallation(request.userId, request.resource);
      return callInstallation(installation, request);
    },

    /** The REST route, whose scopes (`resources:call` or `resources:<resourceId>:call`) the route table declares. */
    async callWithKey(caller: Caller, input: { resourceId: string; method: string; params: Record<string, unknown> }): Promise<ResourceCallResult> {
      const installation = await access.installation(caller.userId, input.resourceId, installationReuseMs);
      return callInstallation(installation, { method: input.method, params: input.params, source: 'api' }, restCallDeadlineMs);
    },

    /**
     * For payments: a paid call by an anonymous x402 payer. Runs with the owner's own installation credentials when
     * the owner installed and authenticated the resource, else without credentials; usage goes on the owner's
     * installation (cost 0: the payer paid), and revenue comes from the payment through recordRevenue.
     * `cost` in the result is the price of the call.
     */
    async callAsOwner(request: { resourceId: string; method: string; params: Record<string, unknown>; maxTimeoutMs?: number }): Promise<ResourceCallResult> {
      const resource = await deps.resources.get(request.resourceId);
      if (!resource) throw new NotFoundError('resourceId', request.resourceId, 'resource');
      if (resource.status !== 'published')
        throw new ConflictError(`resource ${request.resourceId} is not published`, { resourceId: request.resourceId, status: resource.status });
      const installation = await installations.get(resource.ownerId, resource.resourceId);
      const useOwnerCredentials = installation?.isAuthenticated === true;
      const definition = await versions.get(resource.resourceId, useOwnerCredentials ? installation.version : resource.version);
      const credentials = useOwnerCredentials && definition.endpoint.authentication !== 'none' ? await openCredentials(vault, installation) : undefined;
      const method = methodOf(definition, resource.resourceId, request.method);
      checkParams(method, request.params);
      return execute({
        resourceId: resource.resourceId,
        definition,
        method,
        params: request.params,
        source: 'x402',
        installation,
        credentials,
        chargeUsd: 0,
        priceUsd: priceOf(definition, method.cost),
        maxTimeoutMs: request.maxTimeoutMs,
      });
    },
  };
}

export type CallService = ReturnType<typeof createCallService>;
