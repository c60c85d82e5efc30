// The agents area's route: the caller's automations as an MCP server (Streamable HTTP, stateless).
import { resourceRoutes } from '#functions/resources/routes.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { defineRoutes } from '#platform/route.js';

/** A tool call is a script run, a resource call, a marketplace install or a read of a run: what each of those touches. */
const toolTables = {
  ...scriptRoutes.getExecution.tables,
  ...resourceRoutes.installResource.tables,
  ...scriptRoutes.executeScript.tables,
};

export const agentRoutes = defineRoutes('agents', {
  serveMcp: {
    method: 'POST',
    path: '/mcp',
    auth: 'apiKey',
    errorFormat: 'jsonRpc',
    // Each tool checks the key's scopes itself: a key sees and calls only the tools its scopes allow.
    scopes: [],
    summary: "MCP server (Streamable HTTP) whose tools are the caller's automations",
    description:
      "JSON-RPC 2.0 messages of the Model Context Protocol (revisions 2025-06-18 and 2025-11-25), one per request, answered as JSON (or as an SSE stream when the client accepts only that). Tools: the caller's installed resources' methods (resource.<resource>.<method>), the scripts the caller may run (script.<script>), get_run, marketplace.search and marketplace.install. GET and DELETE answer 405: the server keeps no session. Without a valid key: 401 with a WWW-Authenticate challenge naming the protected-resource metadata.",
    tables: toolTables,
    uses: [...new Set([...(scriptRoutes.executeScript.uses ?? []), ...(scriptRoutes.getExecution.uses ?? []), ...(resourceRoutes.installResource.uses ?? [])])],
    timeoutSeconds: scriptRoutes.executeScript.timeoutSeconds,
  },
});
