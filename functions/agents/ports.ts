// What the agents area needs from the others, in its own terms; the composition (functions/app/agents/) fills them
// from the areas' facades.
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
  runnableScripts(userId: string): Promise<{ scriptId: string; name: string; description: string; owned: boolean; inputSchema?: Record<string, unknown> }[]>;
}

/** A run as a tool answers it: ended, or still going (`queued` in a window, `running`, or `waiting` for what `waitingFor` lists). */
export interface RunAnswer {
  executionId: string;
  status: 'queued' | 'running' | 'waiting' | 'success' | 'error' | 'timeout' | 'cancelled';
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
  /** One of the caller's runs; undefined for an unknown run or another user's. */
  getRun(caller: Caller, executionId: string): Promise<RunAnswer | undefined>;
  searchMarketplace(query: { search?: string; category?: string; limit: number }): Promise<unknown>;
  installResource(caller: Caller, resourceId: string): Promise<unknown>;
}
