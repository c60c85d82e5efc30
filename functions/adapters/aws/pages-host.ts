import { envNames } from '#platform/env-names.js';
import { readEnv } from '#platform/settings.js';
import type { PagesHost } from '#functions/templates/ports.js';

/** `https://<sub>.<PAGES_DOMAIN>/` through the CloudFront router, or the `/pages/<sub>/` path form without a domain. */
export function cloudFrontPagesHost(): PagesHost {
  const pathUrl = (subdomain: string) => `${readEnv(envNames.pagesBaseUrl)}/${subdomain}/`;
  return {
    pageUrl: (subdomain) => {
      const domain = readEnv(envNames.pagesDomain);
      return domain ? `https://${subdomain}.${domain}/` : pathUrl(subdomain);
    },
    pathUrl,
  };
}
