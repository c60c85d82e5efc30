// The accounts area's facade: what other areas may ask of an account, typed by the area's own records.
import type { User } from './schemas.js';
import { defaultMonthlyBudgetUsd } from './service.js';
import { createAccountStore } from './store.js';
import { accountService } from '#functions/app/accounts/wiring.js';

/** A key minted for the user (a script's `scripts:execute` key): shown once, stored hashed like any other. */
export const issueKey = (userId: string, name: string, scopes: string[]) => accountService().issueKey(userId, { name, scopes });

export const revokeKey = (userId: string, keyId: string) => accountService().revokeKey(userId, keyId);

/** The account's `monthlyBudgetUsd`, or the default for an unknown account. */
export const monthlyBudgetUsd = async (userId: string): Promise<number> =>
  (await createAccountStore().getUser(userId))?.monthlyBudgetUsd ?? defaultMonthlyBudgetUsd;

/** The public side of an account: who sells under it and where payouts go. */
export async function profile(userId: string): Promise<Pick<User, 'userId' | 'username' | 'walletAddress'> | undefined> {
  const user = await createAccountStore().getUser(userId);
  return user && { userId: user.userId, username: user.username, walletAddress: user.walletAddress };
}

export const accountExists = async (userId: string): Promise<boolean> => (await createAccountStore().getUser(userId)) !== undefined;

/** The accounts named by username or userId, and the names that match none (approvers of a durable run's approval). */
export const findUsers = (names: string[]) => accountService().findUsers(names);
