import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restListMarketplace, async ({ input }) => {
  const { limit, offset, ...filters } = input;
  const page = await scriptInsights().marketplace(filters, { limit, offset });
  return { scripts: page.scripts.map(rest.marketplaceItem), total: page.total, limit, offset };
});
