// The OAuth area's composition: its service with its store, the accounts area's grants (kept in the keys table), the
// platform's rate limiter for registrations, and the console's address for the consent page.
import { accountsApi } from '#functions/app/accounts/wiring.js';
import { perPlatform } from '#functions/app/platform.js';
import { type OAuthService, createOAuthService, registrationsPerMinute } from '#functions/oauth/service.js';
import { createOAuthStore } from '#functions/oauth/store.js';

export const oauthService = perPlatform(
  (platform): OAuthService =>
    createOAuthService({
      store: createOAuthStore(),
      grants: accountsApi(platform),
      limiter: { allow: async (source) => (await platform.rateLimiter.hit(`oauth-register:${source}`, registrationsPerMinute, 60)).allowed },
      clock: platform.clock,
      // The console is served at the platform's address (PUBLIC_BASE_URL; locally the server's own).
      consoleUrl: platform.settings.kernel.callbackBaseUrl,
    }),
);
