import type { PagesHost } from '#functions/templates/ports.js';

/** The local server answers `http://<sub>.localhost:PORT/` and `/pages/<sub>/` (functions/adapters/local/pages-server.ts). */
export const localPagesHost: PagesHost = {
  pageUrl(subdomain, apiBaseUrl) {
    const url = new URL(apiBaseUrl);
    return `${url.protocol}//${subdomain}.localhost${url.port ? `:${url.port}` : ''}/`;
  },
  pathUrl: (subdomain, apiBaseUrl) => `${apiBaseUrl}/pages/${subdomain}/`,
};
