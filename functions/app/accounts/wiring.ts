// The accounts area's composition: the account service with its store, clock and key cache. Handlers, the
// authorizer and other areas' composition modules get it here.
import { systemClock } from '#platform/clock.js';
import { createKeyCache } from '#functions/accounts/key-cache.js';
import { type AccountService, createAccountService, keyCacheTtlMs } from '#functions/accounts/service.js';
import { createAccountStore } from '#functions/accounts/store.js';

let service: AccountService | undefined;
export const accountService = (): AccountService =>
  (service ??= createAccountService({ store: createAccountStore(), clock: systemClock, keyCache: createKeyCache(keyCacheTtlMs, () => Date.now()) }));
