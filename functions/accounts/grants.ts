// OAuth grants: what an MCP client holds once its user consented. Opaque tokens, stored only as SHA-256 in the keys
// table, resolved by the same lookup as API keys; the refresh token rotates on every use, and a spent one presented
// again revokes the grant (OAuth 2.1, refresh token rotation).
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import { type GrantStore, type StoredGrant, type StoredToken, grantKey } from './grant-store.js';
import type { Identity, KeyCache } from './key-cache.js';

/** Short-lived access: a leaked token is worth an hour at most, and a revoked grant's is refused at once locally. */
export const accessTokenSeconds = 3600;
export const refreshTokenSeconds = 30 * 24 * 3600;

export interface IssuedTokens {
  grantId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scopes: string[];
}

export interface GrantRequest {
  userId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  resource: string;
}

/** Why a refresh token buys nothing; `reused` has revoked its grant. */
export type RefreshRefusal = 'unknown' | 'expired' | 'revoked' | 'wrong_client' | 'wrong_resource' | 'reused';

export function createGrantService(deps: { store: GrantStore; clock: Clock; keyCache: KeyCache }) {
  const { store, clock, keyCache } = deps;

  function mint(grantId: string, scopes: string[]) {
    const nowSeconds = Math.floor(clock.now() / 1000);
    const accessToken = newSecret('oat');
    const refreshToken = newSecret('ort');
    const token = (secret: string, kind: StoredToken['kind'], seconds: number): StoredToken => ({
      keyHash: sha256Hex(secret),
      kind,
      keyId: grantId,
      scopes,
      expiresAt: nowSeconds + seconds,
    });
    return {
      accessToken,
      refreshToken,
      access: token(accessToken, 'oauth_access', accessTokenSeconds),
      refresh: token(refreshToken, 'oauth_refresh', refreshTokenSeconds),
    };
  }

  const issued = (grantId: string, minted: ReturnType<typeof mint>): IssuedTokens => ({
    grantId,
    accessToken: minted.accessToken,
    refreshToken: minted.refreshToken,
    expiresIn: accessTokenSeconds,
    scopes: minted.access.scopes,
  });

  async function revoke(grant: StoredGrant): Promise<void> {
    await store.revokeGrant(grant.keyId, clock.nowIso());
    keyCache.invalidate(grant.accessHash);
  }

  return {
    async issue(request: GrantRequest): Promise<IssuedTokens> {
      const grantId = newId('grt');
      const minted = mint(grantId, request.scopes);
      const now = clock.nowIso();
      await store.createGrant(
        {
          keyHash: grantKey(grantId),
          keyId: grantId,
          userId: request.userId,
          kind: 'oauth',
          name: request.clientName,
          clientId: request.clientId,
          scopes: request.scopes,
          resource: request.resource,
          prefix: minted.accessToken.slice(0, 8),
          createdAt: now,
          lastUsedAt: now,
          accessHash: minted.access.keyHash,
          refreshHash: minted.refresh.keyHash,
        },
        minted.access,
        minted.refresh,
      );
      return issued(grantId, minted);
    },

    /** New tokens for a refresh token of `clientId`'s; `resource`, when the client names it, must be the grant's. */
    async refresh(refreshToken: string, clientId: string, resource?: string): Promise<IssuedTokens | { refused: RefreshRefusal }> {
      const used = await store.getToken(sha256Hex(refreshToken));
      if (used?.kind !== 'oauth_refresh') return { refused: 'unknown' };
      const grant = await store.getGrant(used.keyId);
      if (!grant) return { refused: 'unknown' };
      if (grant.clientId !== clientId) return { refused: 'wrong_client' };
      if (grant.revokedAt) return { refused: 'revoked' };
      if (used.usedAt || grant.refreshHash !== used.keyHash) {
        await revoke(grant);
        return { refused: 'reused' };
      }
      if (used.expiresAt * 1000 <= clock.now()) return { refused: 'expired' };
      if (resource !== undefined && resource !== grant.resource) return { refused: 'wrong_resource' };
      const minted = mint(grant.keyId, used.scopes);
      try {
        await store.rotate(grant, used, minted.access, minted.refresh, clock.nowIso());
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // Another exchange of the same refresh token won the race: two holders of one token is what rotation detects.
        await revoke(grant);
        return { refused: 'reused' };
      }
      keyCache.invalidate(grant.accessHash);
      return issued(grant.keyId, minted);
    },

    /** Revokes a grant the platform knows by id (a replayed authorization code revokes what it bought). */
    async revokeGrant(grantId: string): Promise<void> {
      const grant = await store.getGrant(grantId);
      if (grant && !grant.revokedAt) await revoke(grant);
    },

    /** Who an access token speaks for: its grant's user, with the token's scopes, for the grant's resource only. */
    async identityOf(token: StoredToken): Promise<Identity> {
      if (token.kind !== 'oauth_access') return { reason: 'unknown' };
      if (token.expiresAt * 1000 <= clock.now()) return { reason: 'expired' };
      const grant = await store.getGrant(token.keyId);
      if (!grant) return { reason: 'unknown' };
      // A refresh replaced this token: the client holds a newer one.
      if (grant.revokedAt || grant.accessHash !== token.keyHash) return { reason: 'revoked' };
      return { userId: grant.userId, keyId: grant.keyId, scopes: token.scopes.join(','), resource: grant.resource, expiresAt: token.expiresAt * 1000 };
    },
  };
}

export type GrantService = ReturnType<typeof createGrantService>;
