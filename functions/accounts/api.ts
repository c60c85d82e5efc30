// The accounts area's facade: what other areas may ask of an account, typed by the area's own records. Built from the
// area's service and store by its composition; another area's composition hands it to that area's own port.
import type { GrantService } from './grants.js';
import type { User } from './schemas.js';
import { type AccountService, defaultMonthlyBudgetUsd } from './service.js';
import type { AccountStore } from './store.js';

export type AccountsApi = ReturnType<typeof createAccountsApi>;

export function createAccountsApi({ accounts, store, grants }: { accounts: AccountService; store: AccountStore; grants: GrantService }) {
  return {
    /** An OAuth grant for a consenting user's client: its first access and refresh tokens (shown once). */
    issueGrant: grants.issue,

    /** Rotates a grant's refresh token; a spent one presented again revokes the grant. */
    refreshGrant: grants.refresh,

    revokeGrant: grants.revokeGrant,

    activeGrantCount: async (userId: string): Promise<number> => (await store.listKeys(userId)).filter((key) => key.kind === 'oauth' && !key.revokedAt).length,

    /** A key minted for the user (a script's `scripts:execute` key): shown once, stored hashed like any other. */
    issueKey: (userId: string, name: string, scopes: string[]) => accounts.issueKey(userId, { name, scopes }),

    revokeKey: (userId: string, keyId: string) => accounts.revokeKey(userId, keyId),

    /** The key a paid call presents: its owner and agent budget; UNAUTHORIZED when unknown or revoked. */
    agentKey: (apiKey: string) => accounts.agentKey(apiKey),

    /** The account's `monthlyBudgetUsd`, or the default for an unknown account. */
    monthlyBudgetUsd: async (userId: string): Promise<number> => (await store.getUser(userId))?.monthlyBudgetUsd ?? defaultMonthlyBudgetUsd,

    /** The public side of an account: who sells under it and where payouts go. */
    async profile(userId: string): Promise<Pick<User, 'userId' | 'username' | 'walletAddress'> | undefined> {
      const user = await store.getUser(userId);
      return user && { userId: user.userId, username: user.username, walletAddress: user.walletAddress };
    },

    accountExists: async (userId: string): Promise<boolean> => (await store.getUser(userId)) !== undefined,

    /** The accounts named by username or userId, and the names that match none (approvers of a durable run's approval). */
    findUsers: (names: string[]) => accounts.findUsers(names),
  };
}
