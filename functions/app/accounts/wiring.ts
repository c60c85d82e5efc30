// The accounts area's composition: the account service with its store, clock and key cache. Handlers, the
// authorizer and other areas' composition modules get it here.
import { createKeyCache } from '#functions/accounts/key-cache.js';
import { type AccountService, createAccountService, keyCacheTtlMs } from '#functions/accounts/service.js';
import { createAccountStore } from '#functions/accounts/store.js';
import { perPlatform } from '#functions/app/platform.js';

export const accountService = perPlatform(
  ({ clock }): AccountService => createAccountService({ store: createAccountStore(), clock, keyCache: createKeyCache(keyCacheTtlMs, () => clock.now()) }),
);
