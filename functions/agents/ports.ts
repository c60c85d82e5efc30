// What the agents area needs from the others, in its own terms; the composition (functions/app/agents/) fills them
// from the areas' facades.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '#platform/caller.js';

export interface MethodShape {
  name: string;
  httpMethod: string;
  path: string;
  description?: string;
  parameters: { name: string; type: string; required: boolean; description?: string }[];
}

export interface CatalogSources {
  installedResources(userId: string): Promise<{ resourceId: string; name: string; methods: MethodShape[] }[]>;
  runnableScripts(userId: string): Promise<{ scriptId: string; name: string; description: string; ownerId: string; inputSchema?: Record<string, unknown> }[]>;
  ownedFlows(userId: string): Promise<{ flowId: string; title: string; description: string }[]>;
  /** The input schema of document search, from the documents area's own input. */
  documentSearchInput: Tool['inputSchema'];
  /** Each user's change stamp of what their catalog is built from (functions/platform/catalog-stamps.ts). */
  stamps(userIds: string[]): Promise<Map<string, number>>;
}

/** A run as a tool answers it: ended, or still going (`queued` in a window, `running`, or `waiting` for what `waitingFor` lists). */
export interface RunAnswer {
  executionId: string;
  status: 'queued' | 'running' | 'waiting' | 'success' | 'error' | 'timeout' | 'cancelled' | 'skipped' | 'expired';
  output?: unknown;
  error?: { code: string; message: string };
  waitingFor?: { name: string; type: string; wakeAt?: string }[];
}

export interface ToolActions {
  callResource(
    caller: Caller,
    call: { resourceId: string; method: string; params: Record<string, unknown> },
  ): Promise<{ status: number; success: boolean; data: unknown; cost: number; durationMs: number }>;
  runScript(caller: Caller, run: { scriptId: string; data: unknown; client: string }): Promise<RunAnswer>;
  runFlow(caller: Caller, run: { flowId: string; client: string }): Promise<RunAnswer>;
  searchDocuments(caller: Caller, query: { query: string; graphId?: string; limit?: number; threshold?: number }): Promise<unknown>;
  /** One of the caller's runs; undefined for an unknown run or another user's. */
  getRun(caller: Caller, executionId: string): Promise<RunAnswer | undefined>;
  searchMarketplace(query: { search?: string; category?: string; limit: number }): Promise<unknown>;
  installResource(caller: Caller, resourceId: string): Promise<unknown>;
}
