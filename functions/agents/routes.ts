// The agents area's route: the caller's automations as an MCP server (Streamable HTTP, stateless).
import { documentRoutes } from '#functions/documents/routes.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { type TableAccess, defineRoutes } from '#platform/route.js';
import type { TableName } from '../tables.js';

/**
 * A tool call is a script run, a flow run, a resource call, a document search, a marketplace install or a read of a
 * run: what each of those touches, and the catalog's change stamps.
 */
const toolOperations = [
  scriptRoutes.getExecution,
  resourceRoutes.installResource,
  scriptRoutes.executeScript,
  flowRoutes.runFlow,
  documentRoutes.searchDocuments,
];
/** Every table any of them touches, written where any of them writes it. */
const toolTables: typeof scriptRoutes.executeScript.tables = {};
for (const [table, access] of toolOperations.flatMap((operation) => Object.entries(operation.tables ?? {})) as [TableName, TableAccess][])
  if (toolTables[table] !== 'write') toolTables[table] = access;

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
      "JSON-RPC 2.0 messages of the Model Context Protocol (revisions 2025-06-18 and 2025-11-25), one per request, answered as JSON (or as an SSE stream when the client accepts only that). Tools: the caller's installed resources' methods (resource.<resource>.<method>), the scripts the caller may run (script.<script>), the caller's flows (flow.<flow>, run now), documents.search, get_run, marketplace.search and marketplace.install. GET and DELETE answer 405: the server keeps no session. Without a valid key: 401 with a WWW-Authenticate challenge naming the protected-resource metadata.",
    tables: toolTables,
    uses: [...new Set(toolOperations.flatMap((operation) => operation.uses ?? []))],
    timeoutSeconds: Math.max(...toolOperations.map((operation) => operation.timeoutSeconds ?? 0)),
    // Document search loads a graph's index, as its own route does.
    memoryMb: documentRoutes.searchDocuments.memoryMb,
  },
});
