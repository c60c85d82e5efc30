import type { PagesHost } from '#functions/templates/ports.js';

/** `https://<sub>.<PAGES_DOMAIN>/` through the CloudFront router, or the `/pages/<sub>/` path form without a domain. */
export function cloudFrontPagesHost(pages: { baseUrl?: string; domain?: string }): PagesHost {
  const pathUrl = (subdomain: string) => `${pages.baseUrl}/${subdomain}/`;
  return {
    pageUrl: (subdomain) => (pages.domain ? `https://${subdomain}.${pages.domain}/` : pathUrl(subdomain)),
    pathUrl,
  };
}
