// What the flows area needs from the outside, as narrow ports: a language model with tool calling, the tools
// a flow's owner may use, the script runner, and the stores (store.ts, execution-store.ts).
import type { FlowRunEnd, StoredFlowRun } from '#functions/scripts/api.js';

/** A function the model may call; `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text as the model wrote it; the agent parses it. */
  argumentsJson: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ModelTurn {
  content: string;
  toolCalls: ToolCall[];
  usage: { inputTokens: number; outputTokens: number };
}

/** One provider (an OpenAI-compatible endpoint, Amazon Bedrock Converse). */
export interface LanguageModel {
  readonly modelId: string;
  /** USD per million input and output tokens, for the cost of an execution. */
  readonly pricing: { inputPerMTok: number; outputPerMTok: number };
  complete(request: { messages: ChatMessage[]; tools: ToolDefinition[]; timeoutMs: number }): Promise<ModelTurn>;
}

/** A tool the agent can hand the model, bound to its owner. */
export interface BoundTool {
  definition: ToolDefinition;
  /** USD a call costs before it runs, when known (a paid resource method's price). */
  price?: number;
  /** Runs with the owner's permissions; the result goes back to the model. */
  invoke(args: Record<string, unknown>): Promise<{ output: unknown; cost: number }>;
}

export interface ToolCatalog {
  /**
   * The owner's tools named in `recommended`: `<resource>.<method>` or `<resource>` (every method) of an installed
   * resource (by name or id), or an owned script (by id or name). Names that resolve to nothing come back in `unknown`.
   */
  resolve(
    userId: string,
    recommended: string[],
    flowId: string,
    mcpServers?: McpServerRef[],
    /** The flow run the tools serve: a script tool's run is its child. */
    executionId?: string,
  ): Promise<{ tools: BoundTool[]; unknown: string[] }>;
}

/** A remote MCP server an llm flow offers the tools of; `allowedTools` (by the server's tool names) narrows them. */
export interface McpServerRef {
  url: string;
  allowedTools?: string[];
}

export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** Remote MCP servers, reached through the outbound guard: their tools, and one call of one. */
export interface RemoteMcpServers {
  listTools(url: string): Promise<RemoteTool[]>;
  callTool(url: string, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; content: unknown; structuredContent?: unknown }>;
}

/** What a direct flow needs from the scripts area. */
export interface FlowScriptRunner {
  /** May the user run it: their own script or one they installed. */
  canRun(userId: string, scriptId: string): Promise<boolean>;
  /** `waiting`: a durable script suspended; its end comes later (`ended`). */
  /** With `parentExecutionId` (the flow run), the script run is that run's child. */
  run(request: {
    scriptId: string;
    userId: string;
    data: unknown;
    flowId: string;
    eventType?: string;
    parent?: { parentExecutionId: string };
  }): Promise<ScriptRunOutcome>;
  /** The end of a run that had suspended: undefined while it runs or waits, or for an unknown run. */
  ended(executionId: string): Promise<(Omit<ScriptRunOutcome, 'status' | 'noOp' | 'logs'> & { status: 'success' | 'error'; finishedAt: string }) | undefined>;
}

export interface ScriptRunOutcome {
  executionId: string;
  status: 'success' | 'error' | 'timeout' | 'waiting';
  noOp: boolean;
  output: unknown;
  error: { code: string; message: string } | null;
  logs: string[];
  cost: number;
}

/** The step API an llm flow's agent loop runs on: each step's result is kept, so a resumed run does not repeat it. */
export interface AgentSteps {
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** A wait of a registered kind (`approval`); ends the invocation until the wait ends, then returns its result. */
  waitFor<T>(kind: string, name: string, args: unknown): Promise<T>;
}

/** The durable-run engine (the scripts area) running a flow's agent loop in this process. */
export interface DurableFlowRuns {
  /**
   * Runs `body` as invocation `invocation` of the flow run (1 records the run first, with `payload`, what the
   * resumer gets back): finished steps replay, and the first open wait suspends the run. An invocation still holding
   * the run after `runningUntil` is taken as lost, and the run continues in a new one.
   */
  run<T>(
    run: { executionId: string; userId: string; flowId: string; payload: string; runningUntil: string },
    invocation: number,
    body: (steps: AgentSteps) => Promise<T>,
  ): Promise<{ suspended: true } | { suspended: false; value: T }>;
  /** Stops a run that is running or waiting (its open waits end as cancelled); false for one that ended or never was durable. */
  cancel(executionId: string): Promise<boolean>;
  /** Gives run `toExecutionId`, before it starts, the ended steps of `fromExecutionId` before `fromStep` (VALIDATION_ERROR without such a step). */
  reuseSteps(fromExecutionId: string, toExecutionId: string, fromStep: string): Promise<void>;
}

/** The platform's one run record (the scripts area's run table): a flow run as it starts and ends, and the runs rings kept before it. */
export interface FlowRunRecords {
  /** False when the run was cancelled meanwhile: the cancellation stands. */
  put(run: StoredFlowRun): Promise<boolean>;
  /** A running or waiting run's end, once: false when it had ended. */
  end(executionId: string, end: FlowRunEnd): Promise<boolean>;
  putMigrated(runs: StoredFlowRun[]): Promise<void>;
}
