import { agentRoutes } from '#functions/agents/routes.js';
import { buildCatalog, type CatalogEntry } from '#functions/agents/catalog.js';
import { createUserServer } from '#functions/agents/server.js';
import { withBackgroundRuns } from '#platform/background-handler.js';
import { requestBaseUrl } from '#platform/http.js';
import { mcpHandler } from '#platform/mcp-http.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { catalogSources, toolActions } from '../wiring.js';

// A script run past the synchronous wait goes on in this function invoked again (withBackgroundRuns), as executeScript's do.
export const handler = withBackgroundRuns(
  mcpHandler(agentRoutes.serveMcp, ({ caller, client, event }) => {
    let catalog: Promise<CatalogEntry[]> | undefined;
    return createUserServer({
      caller: caller!,
      catalog: () => (catalog ??= buildCatalog(catalogSources(), caller!)),
      actions: toolActions(requestBaseUrl(event)),
      client,
    });
  }),
  (job: Parameters<ReturnType<typeof scriptsApi>['runJob']>[0]) => scriptsApi().runJob(job),
);
