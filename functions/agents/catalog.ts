// The MCP tools of one caller: their installed resources' methods, the scripts they may run, and the platform's own
// tools (read a run, search and install from the marketplace), each named, described and bounded by the key's scopes.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { holdsScope } from '#platform/scopes.js';
import type { CatalogSources, MethodShape } from './ports.js';

/** What calling a tool does. */
export type ToolTarget =
  | { kind: 'resource'; resourceId: string; method: string }
  | { kind: 'script'; scriptId: string; wholeInput: boolean }
  | { kind: 'flow'; flowId: string }
  | { kind: 'documentSearch' }
  | { kind: 'getRun' }
  | { kind: 'marketplaceSearch' }
  | { kind: 'marketplaceInstall' };

export interface CatalogEntry {
  tool: Tool;
  target: ToolTarget;
}

/** An entry with the scopes a key needs to see and call it (any one of them, templates filled from `scopeInput`). */
export interface ScopedEntry extends CatalogEntry {
  scopes: string[];
  scopeInput: Record<string, unknown>;
}

/** MCP's tool-name rule. */
export const toolNamePattern = /^[A-Za-z0-9_.-]{1,128}$/;
const maxSlug = 48;
const idSuffixLength = 8;

/** A name's part from free text: lower case, runs of other characters as one `-`. */
export function slugOf(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxSlug);
  return slug || 'unnamed';
}

const methodPart = (name: string) => name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60);

const jsonType = (type: string): Record<string, unknown> => {
  if (type.endsWith('[]')) return { type: 'array', items: jsonType(type.slice(0, -2)) };
  return ['string', 'number', 'integer', 'boolean', 'object', 'array'].includes(type) ? { type } : {};
};

/** A method's parameters as a JSON Schema object: types, descriptions, required ones; nothing else accepted. */
export function methodInputSchema(method: MethodShape): Tool['inputSchema'] {
  const properties = Object.fromEntries(
    method.parameters.map((parameter) => [
      parameter.name,
      { ...jsonType(parameter.type), ...(parameter.description && { description: parameter.description }) },
    ]),
  );
  const required = method.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  return { type: 'object', properties, ...(required.length && { required }), additionalProperties: false };
}

/** A script without a declared input schema takes anything as its run's `data`. */
export const defaultScriptInput: Tool['inputSchema'] = { type: 'object', properties: { data: { description: "the run's event.data" } } };

const callOutput: Tool['outputSchema'] = {
  type: 'object',
  properties: {
    status: { type: 'integer', description: "the upstream's HTTP status" },
    success: { type: 'boolean' },
    data: { description: "the upstream's answer" },
    cost: { type: 'number', description: 'USD charged for the call' },
    durationMs: { type: 'number' },
  },
  required: ['status', 'success', 'cost', 'durationMs'],
};

const runOutput: Tool['outputSchema'] = {
  type: 'object',
  properties: {
    executionId: { type: 'string' },
    status: { type: 'string', enum: ['running', 'waiting', 'success', 'error', 'timeout', 'cancelled'] },
    output: { description: "the script's result, once it ended" },
    waitingFor: { type: 'array', description: 'a waiting durable run: the waits it is in', items: { type: 'object' } },
  },
  required: ['executionId', 'status'],
};

const resourceScopes = ['resources:call', 'resources:{resourceId}:call'];
const scriptScopes = ['scripts:execute', 'scripts:{scriptId}:execute'];
/** runFlow's scope. */
const flowScopes = ['flows:manage'];
/** A flow runs as its trigger would: it takes no arguments. */
const flowInput: Tool['inputSchema'] = { type: 'object', properties: {}, additionalProperties: false };

const platformTools = (documentSearchInput: Tool['inputSchema']): ScopedEntry[] => [
  {
    target: { kind: 'documentSearch' },
    scopes: ['documents:read', 'documents:write'],
    scopeInput: {},
    tool: {
      name: 'documents.search',
      title: 'Search your documents',
      description: "Semantic search over the chunks of the caller's documents (their own graph, or a group graph they belong to by graphId).",
      inputSchema: documentSearchInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  },
  {
    target: { kind: 'getRun' },
    scopes: ['scripts:read', 'scripts:manage', 'scripts:execute'],
    scopeInput: {},
    tool: {
      name: 'get_run',
      title: 'Read a run',
      description: 'The status and result of a run a tool call started (a call past the synchronous wait answers with its executionId).',
      inputSchema: { type: 'object', properties: { executionId: { type: 'string', maxLength: 64 } }, required: ['executionId'], additionalProperties: false },
      outputSchema: runOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  },
  {
    target: { kind: 'marketplaceSearch' },
    scopes: ['resources:read', 'resources:manage', 'resources:call'],
    scopeInput: {},
    tool: {
      name: 'marketplace.search',
      title: 'Search the marketplace',
      description: 'Published resources (APIs) matching a text, a category or tags; install one with marketplace.install to get its methods as tools.',
      inputSchema: {
        type: 'object',
        properties: {
          search: { type: 'string', maxLength: 200 },
          category: { type: 'string', maxLength: 60 },
          limit: { type: 'integer', minimum: 1, maximum: 50 },
        },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  },
  {
    target: { kind: 'marketplaceInstall' },
    scopes: ['resources:manage'],
    scopeInput: {},
    tool: {
      name: 'marketplace.install',
      title: 'Install a resource',
      description: 'Installs a published resource for the caller; its methods become tools (list the tools again). Credentials are set in the console.',
      inputSchema: { type: 'object', properties: { resourceId: { type: 'string', maxLength: 64 } }, required: ['resourceId'], additionalProperties: false },
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
  },
];

/** `base`, or `base` with the object's id when another object's name gives the same base. */
function uniqueNames<T>(items: T[], base: (item: T) => string, id: (item: T) => string): Map<T, string> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(base(item), (counts.get(base(item)) ?? 0) + 1);
  return new Map(items.map((item) => [item, counts.get(base(item))! > 1 ? `${base(item)}-${slugOf(id(item)).slice(0, idSuffixLength)}` : base(item)]));
}

/**
 * Every tool of the user, sorted by name (pages follow that order), each with the scopes that show it: names do not
 * depend on the key, so one build serves every key of the user (`visibleTo` picks a key's tools).
 */
export async function buildCatalog(sources: CatalogSources, userId: string): Promise<{ entries: ScopedEntry[]; owners: string[] }> {
  const [resources, scripts, flows] = await Promise.all([sources.installedResources(userId), sources.runnableScripts(userId), sources.ownedFlows(userId)]);
  const resourceSlugs = uniqueNames(
    resources,
    (resource) => slugOf(resource.name),
    (resource) => resource.resourceId,
  );
  const scriptSlugs = uniqueNames(
    scripts,
    (script) => slugOf(script.name),
    (script) => script.scriptId,
  );
  const flowSlugs = uniqueNames(
    flows,
    (flow) => slugOf(flow.title),
    (flow) => flow.flowId,
  );
  const entries: ScopedEntry[] = [];
  for (const resource of resources) {
    for (const method of resource.methods) {
      entries.push({
        target: { kind: 'resource', resourceId: resource.resourceId, method: method.name },
        scopes: resourceScopes,
        scopeInput: { resourceId: resource.resourceId },
        tool: {
          name: `resource.${resourceSlugs.get(resource)}.${methodPart(method.name)}`.slice(0, 128),
          title: `${resource.name}: ${method.name}`,
          description: method.description ?? `${method.httpMethod} ${method.path} of ${resource.name}, with your stored credentials`,
          inputSchema: methodInputSchema(method),
          outputSchema: callOutput,
          annotations: { readOnlyHint: method.httpMethod.toUpperCase() === 'GET', openWorldHint: true },
        },
      });
    }
  }
  for (const script of scripts) {
    entries.push({
      target: { kind: 'script', scriptId: script.scriptId, wholeInput: Boolean(script.inputSchema) },
      scopes: scriptScopes,
      scopeInput: { scriptId: script.scriptId },
      tool: {
        name: `script.${scriptSlugs.get(script)}`,
        title: script.name,
        description: script.description || `Runs the script ${script.name}${script.ownerId === userId ? '' : ' (installed)'}`,
        inputSchema: (script.inputSchema as Tool['inputSchema'] | undefined) ?? defaultScriptInput,
        outputSchema: runOutput,
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
    });
  }
  for (const flow of flows) {
    entries.push({
      target: { kind: 'flow', flowId: flow.flowId },
      scopes: flowScopes,
      scopeInput: {},
      tool: {
        name: `flow.${flowSlugs.get(flow)}`,
        title: flow.title,
        description: `Runs the flow "${flow.title}" now, as runFlow does${flow.description ? `: ${flow.description}` : ''}`.slice(0, 1000),
        inputSchema: flowInput,
        outputSchema: runOutput,
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
    });
  }
  entries.push(...platformTools(sources.documentSearchInput));
  return {
    entries: entries.sort((a, b) => (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0)),
    // Whose changes the catalog shows: the user's, and those of the owners of the scripts they installed.
    owners: [...new Set([userId, ...scripts.map((script) => script.ownerId)])],
  };
}

/** The tools a key with `scopes` sees, in the catalog's order. */
export const visibleTo = (entries: ScopedEntry[], scopes: string[]): CatalogEntry[] =>
  entries.filter((entry) => holdsScope(scopes, entry.scopes, entry.scopeInput)).map(({ tool, target }) => ({ tool, target }));

export const pageSize = 100;

/** A page of the catalog; the cursor is the offset, opaque to clients. */
export function catalogPage(entries: CatalogEntry[], cursor: string | undefined): { tools: Tool[]; nextCursor?: string } | undefined {
  const start = cursor === undefined ? 0 : Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10);
  if (!Number.isSafeInteger(start) || start < 0 || start > entries.length) return undefined;
  const end = start + pageSize;
  return {
    tools: entries.slice(start, end).map((entry) => entry.tool),
    ...(end < entries.length && { nextCursor: Buffer.from(String(end)).toString('base64url') }),
  };
}
