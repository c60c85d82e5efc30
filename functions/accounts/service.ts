import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import type { StoredToken } from './grant-store.js';
import type { GrantService } from './grants.js';
import type { Identity, KeyCache } from './key-cache.js';
import type { ApiKeyRecord, User } from './schemas.js';
import type { AccountStore, StoredKey } from './store.js';

/** Monthly budget default. */
export const defaultMonthlyBudgetUsd = 100;
const maxActiveKeys = 50;
/** How long a resolved key is trusted by one authorizer container; revocation is immediate locally. */
export const keyCacheTtlMs = 30_000;

const toRecord = (key: StoredKey): ApiKeyRecord => ({
  keyId: key.keyId,
  kind: key.kind === 'oauth' ? 'oauth' : 'api',
  name: key.name,
  scopes: key.scopes,
  prefix: key.prefix,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt ?? null,
  revokedAt: key.revokedAt ?? null,
  ...(key.clientId && { clientId: key.clientId }),
  ...budgetOf(key),
});

const budgetOf = (key: Pick<StoredKey, 'spendLimitUsd' | 'approvalAboveUsd'>) => ({
  ...(key.spendLimitUsd !== undefined && { spendLimitUsd: key.spendLimitUsd }),
  ...(key.approvalAboveUsd !== undefined && { approvalAboveUsd: key.approvalAboveUsd }),
});

/** A token bound to a resource (an OAuth access token) is refused anywhere else, and once it expires, cached or not. */
function forRequest(identity: Identity, requestUrl: string | undefined, now: number): Identity {
  if (!('userId' in identity)) return identity;
  if (identity.expiresAt !== undefined && identity.expiresAt <= now) return { reason: 'expired' };
  if (identity.resource !== undefined && identity.resource !== requestUrl) return { reason: 'wrong_resource' };
  return identity;
}

export function createAccountService(deps: { store: AccountStore; clock: Clock; keyCache: KeyCache; grants: Pick<GrantService, 'identityOf'> }) {
  const { store, clock, keyCache, grants } = deps;

  function mintKey(userId: string, name: string, scopes: string[]): { apiKey: string; key: StoredKey } {
    const apiKey = newSecret('amp');
    return {
      apiKey,
      key: { keyHash: sha256Hex(apiKey), keyId: newId('key'), userId, name, scopes, prefix: apiKey.slice(0, 8), createdAt: clock.nowIso() },
    };
  }

  async function getOwnUser(caller: Caller): Promise<User> {
    const user = await store.getUser(caller.userId);
    if (!user) throw new NotFoundError('userId', caller.userId, 'user');
    return user;
  }

  return {
    /** Users named by username or userId, each once; `missing` lists the names that are no one. */
    async findUsers(names: string[]): Promise<{ found: Array<Pick<User, 'userId' | 'username'>>; missing: string[] }> {
      const looked = await Promise.all(
        names.map(async (name) => {
          const byId = await store.getUser(name);
          if (byId) return { name, user: byId };
          const userId = await store.userIdOfUsername(name);
          return { name, user: userId ? await store.getUser(userId) : undefined };
        }),
      );
      const found = new Map<string, Pick<User, 'userId' | 'username'>>();
      for (const { user } of looked) if (user) found.set(user.userId, { userId: user.userId, username: user.username });
      return { found: [...found.values()], missing: looked.filter(({ user }) => !user).map(({ name }) => name) };
    },

    async createUser(input: { username: string; walletAddress?: string }) {
      const now = clock.nowIso();
      const user: User = {
        userId: newId('usr'),
        username: input.username,
        walletAddress: input.walletAddress ?? null,
        monthlyBudgetUsd: defaultMonthlyBudgetUsd,
        createdAt: now,
        updatedAt: now,
      };
      const { apiKey, key } = mintKey(user.userId, 'default', ['*']);
      try {
        await store.createUser(user, key);
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`username ${input.username} is taken`, { field: 'username', value: input.username });
        throw error;
      }
      return { userId: user.userId, username: user.username, apiKey };
    },

    getMe: getOwnUser,

    async updateMe(caller: Caller, patch: { username?: string; walletAddress?: string | null; monthlyBudgetUsd?: number }) {
      const current = await getOwnUser(caller);
      const next: User = { ...current, ...patch, updatedAt: clock.nowIso() };
      if (next.updatedAt === current.updatedAt) next.updatedAt = new Date(Date.parse(next.updatedAt) + 1).toISOString();
      try {
        await store.updateUser(current, next);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        if (patch.username && (await store.isUsernameTaken(patch.username)) && patch.username.toLowerCase() !== current.username.toLowerCase()) {
          throw new ConflictError(`username ${patch.username} is taken`, { field: 'username', value: patch.username });
        }
        throw new ConflictError('the account changed while updating; try again');
      }
      return next;
    },

    async createKey(caller: Caller, input: { name: string; scopes: string[]; spendLimitUsd?: number; approvalAboveUsd?: number }) {
      const beyond = caller.scopes.includes('*') ? [] : input.scopes.filter((scope) => !caller.scopes.includes(scope));
      if (beyond.length) throw new ForbiddenError(`a key cannot grant scopes it does not hold: ${beyond.join(', ')}`, { scopes: beyond });
      const active = (await store.listKeys(caller.userId)).filter((key) => !key.revokedAt && !key.kind);
      if (active.length >= maxActiveKeys) throw new ConflictError(`at most ${maxActiveKeys} active keys per account; revoke one first`);
      const minted = mintKey(caller.userId, input.name, [...new Set(input.scopes)]);
      const key = { ...minted.key, ...budgetOf(input) };
      await store.putKey(key);
      return { keyId: key.keyId, apiKey: minted.apiKey, name: key.name, scopes: key.scopes, createdAt: key.createdAt, ...budgetOf(key) };
    },

    /** Sets or removes (null) the key's agent budget: its daily spend limit and approval threshold for paid calls. */
    async updateKey(caller: Caller, input: { keyId: string; spendLimitUsd?: number | null; approvalAboveUsd?: number | null }): Promise<ApiKeyRecord> {
      const key = (await store.listKeys(caller.userId)).find((candidate) => candidate.keyId === input.keyId);
      if (!key) throw new NotFoundError('keyId', input.keyId, 'key');
      if (key.revokedAt) throw new ConflictError(`key ${input.keyId} is revoked`, { keyId: input.keyId });
      const { keyId: _keyId, ...budget } = input;
      try {
        await store.updateBudget(key.keyHash, budget);
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`key ${input.keyId} is revoked`, { keyId: input.keyId });
        throw error;
      }
      const next = { ...key };
      for (const [name, value] of Object.entries(budget) as Array<['spendLimitUsd' | 'approvalAboveUsd', number | null | undefined]>) {
        if (value === null) delete next[name];
        else if (value !== undefined) next[name] = value;
      }
      return toRecord(next);
    },

    /** The key a paid call presents (an agent's): its owner and budget. UNAUTHORIZED when unknown or revoked. */
    async agentKey(apiKey: string): Promise<{ userId: string; keyId: string; name: string; spendLimitUsd?: number; approvalAboveUsd?: number }> {
      const key = await store.getKeyByHash(sha256Hex(apiKey));
      if (!key) throw new UnauthorizedError();
      if (key.revokedAt) throw new UnauthorizedError('this API key has been revoked');
      return { userId: key.userId, keyId: key.keyId, name: key.name, ...budgetOf(key) };
    },

    /** A key the platform hands out on the user's behalf (a script's `scripts:execute` key): no caller scopes or key cap apply. */
    async issueKey(userId: string, input: { name: string; scopes: string[] }) {
      const { apiKey, key } = mintKey(userId, input.name, input.scopes);
      await store.putKey(key);
      return { keyId: key.keyId, apiKey };
    },

    async listKeys(caller: Caller, page: { limit: number; offset: number }) {
      const keys = await store.listKeys(caller.userId);
      return { keys: keys.slice(page.offset, page.offset + page.limit).map(toRecord), total: keys.length, ...page };
    },

    /** Revokes one of `userId`'s keys: for the key's owner (DELETE /keys/{keyId}) and for the platform (a script's run key). */
    async revokeKey(userId: string, keyId: string) {
      const key = (await store.listKeys(userId)).find((candidate) => candidate.keyId === keyId);
      if (!key) throw new NotFoundError('keyId', keyId, 'key');
      if (key.revokedAt) throw new ConflictError(`key ${keyId} is already revoked`, { keyId });
      try {
        await store.revokeKey(key.keyHash, clock.nowIso());
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`key ${keyId} is already revoked`, { keyId });
        throw error;
      }
      // A grant's tokens are refused from now on: the access token's identity reads the grant.
      keyCache.invalidate(key.accessHash ?? key.keyHash);
      return `key ${keyId} revoked`;
    },

    /**
     * Who an API key or OAuth access token belongs to, as presented at `requestUrl` (origin and path); answers from the
     * cache for up to keyCacheTtlMs.
     */
    async resolveKey(apiKey: string | undefined, requestUrl?: string): Promise<Identity> {
      if (!apiKey) return { reason: 'missing' };
      const keyHash = sha256Hex(apiKey);
      const cached = keyCache.get(keyHash);
      if (cached) return forRequest(cached, requestUrl, clock.now());
      const lookup = async (): Promise<Identity> => {
        const key = await store.getKeyByHash(keyHash);
        if (!key) return { reason: 'unknown' };
        // A refresh token is no key: only an access token is, through its grant.
        if (key.kind) return grants.identityOf(key as unknown as StoredToken);
        return key.revokedAt ? { reason: 'revoked' } : { userId: key.userId, keyId: key.keyId, scopes: key.scopes.join(',') };
      };
      const readAt = keyCache.generation();
      const identity = await lookup();
      if (keyCache.set(keyHash, identity, readAt)) return forRequest(identity, requestUrl, clock.now());
      // A revocation finished while the key was read, so the read may predate it. A second read starts after its
      // store write (consistent read): it sees the revocation, and is cached only if no other one intervened.
      const again = keyCache.generation();
      const fresh = await lookup();
      keyCache.set(keyHash, fresh, again);
      return forRequest(fresh, requestUrl, clock.now());
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
