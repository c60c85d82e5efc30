// The accounts area's composition: the account service with its store, clock and key cache, the OAuth grants beside
// it (sharing that cache, so a revoked grant's token is refused at once), and the area's facade over them. Handlers and
// the authorizer get the service here, other areas' composition modules the facade.
import { type AccountsApi, createAccountsApi } from '#functions/accounts/api.js';
import { createGrantStore } from '#functions/accounts/grant-store.js';
import { type GrantService, createGrantService } from '#functions/accounts/grants.js';
import { createKeyCache } from '#functions/accounts/key-cache.js';
import { type AccountService, createAccountService, keyCacheTtlMs } from '#functions/accounts/service.js';
import { createAccountStore } from '#functions/accounts/store.js';
import { perPlatform } from '#functions/app/platform.js';

const keyCache = perPlatform(({ clock }) => createKeyCache(keyCacheTtlMs, () => clock.now()));

const grantService = perPlatform(
  (platform): GrantService => createGrantService({ store: createGrantStore(), clock: platform.clock, keyCache: keyCache(platform) }),
);

export const accountService = perPlatform(
  (platform): AccountService =>
    createAccountService({ store: createAccountStore(), clock: platform.clock, keyCache: keyCache(platform), grants: grantService(platform) }),
);

export const accountsApi = perPlatform(
  (platform): AccountsApi => createAccountsApi({ accounts: accountService(platform), store: createAccountStore(), grants: grantService(platform) }),
);
