// The accounts area's composition: the account service with its store, clock and key cache, and the area's facade
// over them. Handlers and the authorizer get the service here, other areas' composition modules the facade.
import { type AccountsApi, createAccountsApi } from '#functions/accounts/api.js';
import { createKeyCache } from '#functions/accounts/key-cache.js';
import { type AccountService, createAccountService, keyCacheTtlMs } from '#functions/accounts/service.js';
import { createAccountStore } from '#functions/accounts/store.js';
import { perPlatform } from '#functions/app/platform.js';

export const accountService = perPlatform(
  ({ clock }): AccountService => createAccountService({ store: createAccountStore(), clock, keyCache: createKeyCache(keyCacheTtlMs, () => clock.now()) }),
);

export const accountsApi = perPlatform((platform): AccountsApi => createAccountsApi({ accounts: accountService(platform), store: createAccountStore() }));
