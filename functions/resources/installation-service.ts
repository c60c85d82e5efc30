// Installation lifecycle (Installation): install, authenticate, upgrade, uninstall, the lists and
// usage, and the OAuth2 authorization-code flow that ends in stored tokens.
import type { CatalogStamps } from '#platform/catalog-stamps.js';
import type { Clock } from '#platform/clock.js';
import { ConflictError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import type { CredentialVault } from '#platform/ports.js';
import type { Access } from './access.js';
import { type OAuth2Credentials, credentialContext, openCredentials, parseCredentials, webhookSecretContext } from './credentials.js';
import { type InstallationStore, recentCallsKept } from './installation-store.js';
import { authorizationUrl, exchangeCode, newCodeVerifier, newState } from './oauth.js';
import { type InstallationItem, type ResourceItem, installationView } from './records.js';
import type { CredentialType } from './schemas.js';
import type { ResourceStore } from './store.js';
import type { VersionCache } from './versions.js';

const oauthStateTtlSeconds = 600;

export const oauthCallbackPath = '/api/sdk/v1/resources/oauth/callback';
export const webhookReceivePath = (installationId: string) => `/api/webhooks/resources/${installationId}`;

export interface InstallationDeps {
  resources: ResourceStore;
  installations: InstallationStore;
  versions: VersionCache;
  access: Access;
  vault: CredentialVault;
  clock: Clock;
  /** Installing, upgrading and uninstalling change the user's agent tools. */
  catalog: Pick<CatalogStamps, 'changed'>;
}

export function createInstallationService(deps: InstallationDeps) {
  const { resources, installations, versions, access, vault, clock } = deps;

  /** Starts the authorization-code flow: a single-use state (stored by hash) and the provider URL to send the user to. */
  async function beginAuthorization(installation: InstallationItem, credentials: OAuth2Credentials, baseUrl: string) {
    const { endpoint } = await versions.get(installation.resourceId, installation.version);
    const authUrl = endpoint.authConfig?.authUrl;
    if (!authUrl || !endpoint.authConfig?.tokenUrl)
      throw new ConflictError('this resource has no authConfig.authUrl and tokenUrl for the OAuth2 flow', { resourceId: installation.resourceId });
    if (!credentials.clientId || !credentials.clientSecret) {
      throw new ConflictError('authenticate with type oauth2 and credentials {clientId, clientSecret} before authorizing', {
        resourceId: installation.resourceId,
        reason: 'no_client',
      });
    }
    const state = newState();
    const codeVerifier = newCodeVerifier();
    const redirectUri = `${baseUrl}${oauthCallbackPath}`;
    const nowMs = clock.now();
    await installations.putOAuthState({
      stateHash: sha256Hex(state),
      userId: installation.userId,
      resourceId: installation.resourceId,
      installationId: installation.installationId,
      redirectUri,
      codeVerifier,
      createdAt: clock.nowIso(),
      expiresAt: Math.floor(nowMs / 1000) + oauthStateTtlSeconds,
    });
    return {
      authorizationUrl: authorizationUrl({ authUrl, clientId: credentials.clientId, redirectUri, scopes: endpoint.authConfig.scopes, state, codeVerifier }),
      state,
    };
  }

  async function storeCredentials(installation: InstallationItem, credentials: Record<string, unknown> & { type: CredentialType }, isAuthenticated: boolean) {
    const authenticatedAt = clock.nowIso();
    const sealed = await vault.encrypt(credentials, credentialContext(installation));
    const stored = await installations.update(installation, { credentialType: credentials.type, credentials: sealed, isAuthenticated, authenticatedAt });
    if (!stored) throw new ConflictError(`resource ${installation.resourceId} was uninstalled meanwhile`, { resourceId: installation.resourceId });
    return authenticatedAt;
  }

  return {
    async install(caller: Caller, resourceId: string, baseUrl: string) {
      const resource = await access.visible(caller.userId, resourceId);
      if (resource.status !== 'published')
        throw new ConflictError(`resource ${resourceId} is not published; only published resources can be installed`, { resourceId, status: resource.status });
      const item: InstallationItem = {
        userId: caller.userId,
        resourceId,
        installationId: newId('ins'),
        resourceName: resource.name,
        resourceOwnerId: resource.ownerId,
        version: resource.version,
        status: 'active',
        isAuthenticated: false,
        installedAt: clock.nowIso(),
        totalCalls: 0,
        failedCalls: 0,
        totalCost: 0,
        recentCalls: [],
        dailyCalls: {},
      };
      // Webhook resources: the signing secret is shown once, here; only its sealed form is kept.
      const webhookSecret = resource.resourceType === 'webhook' ? newSecret('whsec') : undefined;
      if (webhookSecret) item.webhookSecret = await vault.encrypt({ secret: webhookSecret }, webhookSecretContext(item));
      const refusal = await installations.install(item);
      if (refusal === 'already_installed') throw new ConflictError(`resource ${resourceId} is already installed`, { resourceId, reason: refusal });
      if (refusal)
        throw new ConflictError(`resource ${resourceId} is not published; only published resources can be installed`, { resourceId, reason: refusal });
      await deps.catalog.changed(caller.userId);
      return {
        ...installationView(item),
        ...(webhookSecret && { webhookUrl: `${baseUrl}${webhookReceivePath(item.installationId)}`, webhookSecret }),
      };
    },

    async uninstall(caller: Caller, resourceId: string) {
      // A call landing between the read and the removal changes the counters being folded: read again and retry.
      for (let attempt = 0; attempt < 5; attempt++) {
        const installation = await access.installation(caller.userId, resourceId);
        if (await installations.uninstall(installation)) {
          await deps.catalog.changed(caller.userId);
          return `resource ${resourceId} uninstalled; its stored credentials were removed`;
        }
      }
      throw new ConflictError(`resource ${resourceId} is being called too often to uninstall; try again`, { resourceId });
    },

    async authenticate(caller: Caller, input: { resourceId: string; type: CredentialType; credentials: Record<string, unknown> }, baseUrl: string) {
      const installation = await access.installation(caller.userId, input.resourceId);
      const { endpoint } = await versions.get(installation.resourceId, installation.version);
      if (endpoint.authentication === 'none' || endpoint.authentication === 'signature') {
        throw new ConflictError(`resource ${input.resourceId} uses authentication ${endpoint.authentication} and takes no credentials`, {
          resourceId: input.resourceId,
          authentication: endpoint.authentication,
        });
      }
      if (input.type !== endpoint.authentication)
        throw new ValidationError('type', input.type, `resource ${input.resourceId} uses authentication ${endpoint.authentication}`);
      const credentials = parseCredentials(input.type, input.credentials);
      // oauth2 with a client only is half way: the tokens come from the authorization-code flow.
      const needsAuthorization = credentials.type === 'oauth2' && !credentials.accessToken;
      const authenticatedAt = await storeCredentials(installation, credentials, !needsAuthorization);
      const authorization = needsAuthorization ? await beginAuthorization(installation, credentials as OAuth2Credentials, baseUrl) : undefined;
      return {
        installationId: installation.installationId,
        resourceId: installation.resourceId,
        type: credentials.type,
        isAuthenticated: !needsAuthorization,
        authenticatedAt,
        ...authorization,
      };
    },

    async authorize(caller: Caller, resourceId: string, baseUrl: string) {
      const installation = await access.installation(caller.userId, resourceId);
      const credentials = await openCredentials(vault, installation);
      if (credentials?.type !== 'oauth2')
        throw new ConflictError('authenticate with type oauth2 and credentials {clientId, clientSecret} before authorizing', {
          resourceId,
          reason: 'no_client',
        });
      return beginAuthorization(installation, credentials, baseUrl);
    },

    /** The provider redirects the user here; the code becomes tokens, stored sealed. */
    async completeAuthorization(input: { state: string; code?: string; error?: string; error_description?: string }) {
      const pending = await installations.takeOAuthState(sha256Hex(input.state));
      if (!pending || pending.expiresAt * 1000 < clock.now())
        throw new ValidationError('state', input.state, 'unknown, used or expired OAuth2 state: start the authorization again');
      if (input.error)
        throw new ValidationError(
          'error',
          input.error,
          `the provider refused the authorization: ${input.error}${input.error_description ? ` (${input.error_description})` : ''}`,
        );
      if (!input.code) throw new ValidationError('code', null, 'the callback carries no code');
      const installation = await installations.get(pending.userId, pending.resourceId);
      if (installation?.installationId !== pending.installationId)
        throw new ConflictError('the installation this authorization was for no longer exists', { resourceId: pending.resourceId });
      const credentials = await openCredentials(vault, installation);
      const { endpoint } = await versions.get(installation.resourceId, installation.version);
      if (credentials?.type !== 'oauth2' || !endpoint.authConfig?.tokenUrl)
        throw new ConflictError('the installation has no OAuth2 client any more', { resourceId: pending.resourceId });
      const tokens = await exchangeCode({
        tokenUrl: endpoint.authConfig.tokenUrl,
        credentials,
        code: input.code,
        redirectUri: pending.redirectUri,
        codeVerifier: pending.codeVerifier,
        nowMs: clock.now(),
      });
      const authenticatedAt = await storeCredentials(installation, tokens, true);
      return {
        installationId: installation.installationId,
        resourceId: installation.resourceId,
        isAuthenticated: true,
        authenticatedAt,
        expiresAt: tokens.expiresAt ?? null,
      };
    },

    async list(caller: Caller, page: { limit: number; offset: number }) {
      const all = (await installations.listByUser(caller.userId)).sort((a, b) => b.installedAt.localeCompare(a.installedAt));
      const shown = all.slice(page.offset, page.offset + page.limit);
      const latest = shown.length ? await resources.getMany(shown.map((item) => item.resourceId)) : new Map<string, ResourceItem>();
      return {
        installations: shown.map((item) => ({
          installationId: item.installationId,
          resourceId: item.resourceId,
          resourceName: item.resourceName,
          isAuthenticated: item.isAuthenticated,
          status: item.status,
          installedAt: item.installedAt,
          lastUsedAt: item.lastUsedAt ?? null,
          version: item.version,
          latestVersion: latest.get(item.resourceId)?.version ?? item.version,
        })),
        total: all.length,
        ...page,
      };
    },

    async usage(caller: Caller, installationId: string) {
      const item = await access.ownInstallation(caller.userId, installationId);
      const today = new Date(clock.now()).toISOString().slice(0, 10);
      return {
        installationId,
        resourceId: item.resourceId,
        totalCalls: item.totalCalls,
        totalCost: Math.round(item.totalCost * 1e6) / 1e6,
        callsToday: item.dailyCalls?.[today] ?? 0,
        lastUsedAt: item.lastUsedAt ?? null,
        recentCalls: (item.recentCalls ?? [])
          .slice(-recentCallsKept)
          .reverse()
          .map(({ timestamp, method, cost, duration, success }) => ({ timestamp, method, cost, duration, success })),
      };
    },

    /** Moves an installation to the resource's current version; credentials of another auth type no longer fit and are dropped. */
    async upgrade(caller: Caller, installationId: string) {
      const item = await access.ownInstallation(caller.userId, installationId);
      const resource = await access.visible(caller.userId, item.resourceId);
      if (resource.status !== 'published')
        throw new ConflictError(`resource ${item.resourceId} is not published; its current version cannot be installed`, { resourceId: item.resourceId });
      if (item.version >= resource.version)
        throw new ConflictError(`installation ${installationId} is already on the latest version ${item.version}`, { installationId, version: item.version });
      const { endpoint } = await versions.get(item.resourceId, resource.version);
      const keepsCredentials = item.credentialType !== undefined && item.credentialType === endpoint.authentication;
      const next: InstallationItem = { ...item, version: resource.version, isAuthenticated: keepsCredentials && item.isAuthenticated };
      const dropped: Array<keyof InstallationItem> = keepsCredentials ? [] : ['credentials', 'credentialType', 'authenticatedAt'];
      if (
        !(await installations.update(item, { version: next.version, isAuthenticated: next.isAuthenticated }, dropped, {
          field: 'version',
          equals: item.version,
        }))
      ) {
        throw new ConflictError(`installation ${installationId} changed meanwhile; read it again and retry`, { installationId });
      }
      await deps.catalog.changed(caller.userId);
      return { ...installationView(next), previousVersion: item.version };
    },
  };
}

export type InstallationService = ReturnType<typeof createInstallationService>;
