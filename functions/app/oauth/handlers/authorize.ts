import { Reply, httpHandler } from '#platform/http.js';
import { oauthRoutes } from '#functions/oauth/routes.js';
import { oauthService } from '../wiring.js';

export const handler = httpHandler(
  oauthRoutes.authorize,
  async ({ input, baseUrl }) => new Reply(302, '', { Location: await oauthService().authorize(input, baseUrl), 'Cache-Control': 'no-store' }),
);
