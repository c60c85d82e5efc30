import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.listMarketplaceScripts, async ({ input }) => {
  const { limit, offset, ...query } = input;
  const page = await scriptInsights().marketplace(query, { limit, offset });
  return { total: page.total, limit, offset, scripts: page.scripts.map(sdk.listItem) };
});
