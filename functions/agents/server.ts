// The per-user MCP server: tools/list pages the caller's catalog, tools/call checks the arguments against the tool's
// input schema and runs it as the caller. Failures of a call are tool errors (`isError`) the agent can read and act
// on; an unknown tool or a bad cursor is a JSON-RPC error. Built per request over the user's cached catalog
// (catalog-cache.ts); the validators of input schemas are compiled once per schema.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Caller } from '#platform/caller.js';
import { AppError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { type CatalogEntry, catalogPage } from './catalog.js';
import type { CatalogView } from './catalog-cache.js';
import type { RunAnswer, ToolActions } from './ports.js';

export const serverInfo = { name: 'automation-marketplace', title: 'Your automations', version: '1.0.0' };

const instructions =
  "Tools are the caller's automations: resource.<resource>.<method> calls an installed API with the caller's stored credentials, " +
  'script.<script> runs a script, flow.<flow> runs a flow now, documents.search searches your documents, get_run reads a run that outlived its call, ' +
  'marketplace.search and marketplace.install find and add resources.';

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: text(structured) }], structuredContent: structured };
}

function runResult(run: RunAnswer): CallToolResult {
  const structured = { ...run } as Record<string, unknown>;
  if (run.status === 'running')
    return { ...toolResult(structured), content: [{ type: 'text', text: `run ${run.executionId} is still running: call get_run with its executionId` }] };
  if (run.status === 'waiting')
    return {
      ...toolResult(structured),
      content: [{ type: 'text', text: `run ${run.executionId} is waiting for ${text(run.waitingFor ?? [])}: call get_run later` }],
    };
  if (run.status !== 'success')
    return {
      ...toolResult(structured),
      isError: true,
      content: [{ type: 'text', text: `run ${run.executionId} ended ${run.status}: ${run.error?.message ?? 'no detail'}` }],
    };
  return toolResult(structured);
}

const object = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

async function call(entry: CatalogEntry, args: Record<string, unknown>, caller: Caller, actions: ToolActions, client: string): Promise<CallToolResult> {
  const { target } = entry;
  switch (target.kind) {
    case 'resource':
      return toolResult(await actions.callResource(caller, { resourceId: target.resourceId, method: target.method, params: args }));
    case 'script':
      return runResult(await actions.runScript(caller, { scriptId: target.scriptId, data: target.wholeInput ? args : (args.data ?? {}), client }));
    case 'flow':
      return runResult(await actions.runFlow(caller, { flowId: target.flowId, client }));
    case 'documentSearch':
      return toolResult(
        object(
          await actions.searchDocuments(caller, {
            query: String(args.query),
            ...(args.graphId !== undefined && { graphId: String(args.graphId) }),
            ...(args.limit !== undefined && { limit: args.limit as number }),
            ...(args.threshold !== undefined && { threshold: args.threshold as number }),
          }),
        ),
      );
    case 'getRun': {
      const run = await actions.getRun(caller, String(args.executionId));
      return run ? runResult(run) : toolError(`no run ${String(args.executionId)} of yours`);
    }
    case 'marketplaceSearch':
      return toolResult(
        object(await actions.searchMarketplace({ search: args.search as string, category: args.category as string, limit: (args.limit as number) ?? 10 })),
      );
    case 'marketplaceInstall':
      return toolResult(object(await actions.installResource(caller, String(args.resourceId))));
  }
}

export interface UserServerDeps {
  caller: Caller;
  /** The tools the caller's key sees, read once per request that needs them. */
  catalog: () => Promise<CatalogView>;
  actions: ToolActions;
  /** Who the client said it is (its clientInfo name), for the run records. */
  client: string;
}

/** Validators compiled once per input schema: a cached catalog keeps its schemas, so a call compiles nothing. */
const validators = new AjvJsonSchemaValidator();
const compiled = new WeakMap<object, ReturnType<AjvJsonSchemaValidator['getValidator']>>();

function validatorOf(schema: CatalogEntry['tool']['inputSchema']) {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = validators.getValidator(schema)));
  return validate;
}

export function createUserServer({ caller, catalog, actions, client }: UserServerDeps): Server {
  const server = new Server(serverInfo, { capabilities: { tools: { listChanged: false } }, instructions });

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const page = catalogPage((await catalog()).entries, request.params?.cursor);
    if (!page) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown cursor; list from the start');
    return page;
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    const entry = (await catalog()).byName.get(name);
    // Another user's tool and a tool the key's scopes leave out are as unknown as one that never existed.
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name.slice(0, 128))}; call tools/list for the tools you have`);
    const args = request.params.arguments ?? {};
    const checked = validatorOf(entry.tool.inputSchema)(args);
    if (!checked.valid) return toolError(`the arguments do not match the input schema of ${name}: ${checked.errorMessage ?? 'invalid'}`);
    try {
      return await call(entry, args, caller, actions, client);
    } catch (error) {
      if (error instanceof AppError) return toolError(`${error.code}: ${error.message}`);
      logger.error('mcp tool call failed', { tool: name, error: error instanceof Error ? error.message : String(error) });
      return toolError('INTERNAL_ERROR: the call failed inside the platform; try again later');
    }
  });
  return server;
}
