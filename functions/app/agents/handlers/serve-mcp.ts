import { agentRoutes } from '#functions/agents/routes.js';
import type { CatalogView } from '#functions/agents/catalog-cache.js';
import { createUserServer } from '#functions/agents/server.js';
import { withBackgroundRuns } from '#platform/background-handler.js';
import { requestBaseUrl } from '#platform/http.js';
import { mcpHandler } from '#platform/mcp-http.js';
import { flowsApi } from '#functions/app/flows/wiring.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { catalogCache, toolActions } from '../wiring.js';

type ScriptJob = Parameters<ReturnType<typeof scriptsApi>['runJob']>[0];
type FlowJob = Parameters<ReturnType<typeof flowsApi>['runJob']>[0];

// A script or flow run past the synchronous wait goes on in this function invoked again (withBackgroundRuns), as
// executeScript's and runFlow's do.
export const handler = withBackgroundRuns(
  mcpHandler(agentRoutes.serveMcp, ({ caller, client, event }) => {
    let catalog: Promise<CatalogView> | undefined;
    return createUserServer({
      caller: caller!,
      catalog: () => (catalog ??= catalogCache().view(caller!.userId, caller!.scopes)),
      actions: toolActions(requestBaseUrl(event)),
      client,
    });
  }),
  (job: ScriptJob | FlowJob) => ('flow' in job ? flowsApi().runJob(job) : scriptsApi().runJob(job)),
);
