// The flows area's records as stored, the interface's Limits/Flows, and the public views of a flow.
import { linesByInvocation } from '#functions/scripts/api.js';
import type { McpServerRef } from './ports.js';

export const flowLimits = {
  titleLength: 200,
  descriptionLength: 1000,
  promptLength: 10_000,
  flowsPerUser: 1000,
  createdPerDay: 100,
  executionsPerDay: 10_000,
  concurrentExecutions: 10,
  executionSeconds: 300,
  historyKept: 100,
  /** Not an interface limit: bounds the tool definitions sent to the model. */
  recommendedTools: 50,
  /** Not an interface limit: tool names an llm flow holds for approval. */
  approvalRequired: 50,
  /** Not an interface limit: remote MCP servers an llm flow offers the tools of. */
  mcpServers: 5,
} as const;

/** How long a held tool call waits for its approver before the model hears that the approval timed out. */
export const toolApprovalHours = 24;

/** Retries after 1 min, 5 min, 15 min, 1 hour; when the last one fails too, the flow pauses. */
export const retryDelaysMs = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000] as const;
/**
 * Failures of configuration that no retry mends until a person acts: the run fails at once with its code, without the
 * retries of the failure policy; the flow keeps its trigger, so the first run after the fix succeeds.
 */
export const unretriableCodes: ReadonlySet<string> = new Set(['LLM_NOT_CONFIGURED', 'NO_SCRIPT']);
/** Three consecutive failures of the script a flow runs pause it. */
export const scriptFailuresToPause = 3;

export const flowStatuses = ['active', 'paused', 'completed'] as const;
export type FlowStatus = (typeof flowStatuses)[number];
export const flowScopes = ['user', 'team', 'global'] as const;
export type FlowScope = (typeof flowScopes)[number];
export const executionTypes = ['llm', 'direct'] as const;
export type ExecutionType = (typeof executionTypes)[number];

/** How an operator configures a model: the warning on an llm flow and the LLM_NOT_CONFIGURED failure of its runs both say it. */
export const configureModelHint = 'set LLM_BASE_URL and LLM_MODEL (any OpenAI-compatible endpoint) or LLM_PROVIDER=bedrock and LLM_MODEL';

/** What getFlow and the create operations warn about: an llm flow while no model is configured runs, and fails every run. */
export function flowWarnings(flow: Pick<FlowItem, 'executionType'>, llmConfigured: boolean): string[] {
  if (flow.executionType !== 'llm' || llmConfigured) return [];
  return [
    `no language model is configured on this platform: every run of this llm flow fails with LLM_NOT_CONFIGURED until the operator ${configureModelHint}`,
  ];
}

export type FlowTrigger = { type: 'time'; config: { cronExpression: string } } | { type: 'event'; config: { eventType: string; rootCondition: unknown } };

export interface FlowItem {
  flowId: string;
  userId: string;
  title: string;
  description: string;
  status: FlowStatus;
  scope: FlowScope;
  trigger: FlowTrigger;
  scriptId: string | null;
  executionType: ExecutionType;
  prompt: string | null;
  recommendedTools: string[];
  /** Tool names (as the flow's tool catalog names them) whose calls wait for the owner's approval. */
  approvalRequired?: string[];
  /** A paid resource call priced above this (USD) waits for the owner's approval. */
  approvalAboveUsd?: number;
  /** Remote MCP servers whose tools the model is offered. */
  mcpServers?: McpServerRef[];
  executionCount: number;
  lastExecutedAt: string | null;
  createdAt: string;
  updatedAt: string;
  pausedAt?: string;
  resumedAt?: string;
  /** `<userId>#<eventType>` while an event flow is active: the key of the sparse byEventTrigger index. */
  eventKey?: string;
  /** Executions in progress: executionId to start (epoch ms); its size is the concurrency check. */
  runs: Record<string, number>;
  /** Failed runs of a direct flow's script since its last success. */
  scriptFailures: number;
  /** The schedule minute (ISO) of the last firing started: a redelivered firing does not run twice. */
  lastFiring?: string;
}

/** `waiting`: a tool call of an llm flow waits for its approval, or a direct flow's durable script waits; the execution settles when the run continues and ends. */
export type ExecutionStatus = 'success' | 'failed' | 'waiting';

/** An item of `executionResults`, plus `error` for failures (TIMEOUT). */
export interface ExecutionResult {
  executionId: string;
  timestamp: string;
  status: ExecutionStatus;
  duration: number;
  cost: number;
  logs: string[];
  /** How many of `logs` each invocation printed, in order (a run that continued after a wait has more than one). */
  logInvocationLines?: number[];
  result: unknown;
  error?: { code: string; message: string };
  /** Kept on the stored item only: the script run a waiting execution waits on. */
  scriptExecutionId?: string;
}

/** The most log lines a flow run keeps, over all its invocations. */
export const maxRunLogLines = 200;

/**
 * An invocation's lines after those of the invocations before it (`earlier`, the run's result as it waited), within
 * maxRunLogLines: past it, a note says what was left out, and later invocations add nothing.
 */
export function continuedLogs(earlier: Pick<ExecutionResult, 'logs' | 'logInvocationLines'> | undefined, lines: string[]) {
  const before = earlier?.logs ?? [];
  const counts = earlier?.logInvocationLines ?? (before.length ? [before.length] : []);
  const room = Math.max(0, maxRunLogLines - before.length);
  const note = `[${lines.length - room + 1} more log lines of invocation ${counts.length + 1}, and every line of later invocations, not kept: a flow run keeps ${maxRunLogLines} lines]`;
  const kept = lines.length <= room ? lines : room === 0 ? [] : [...lines.slice(0, room - 1), note];
  return { logs: [...before, ...kept], logInvocationLines: [...counts, kept.length] };
}

/** A result as the API shows it: each log line with the invocation that printed it (lines added after the last invocation count as its). */
export function resultView({ logInvocationLines, ...result }: ExecutionResult) {
  return { ...result, logLines: linesByInvocation(result.logs, logInvocationLines) };
}

export const eventKeyOf = (userId: string, eventType: string) => `${userId}#${eventType}`;

/** The full record of getFlow and of the create operations. */
export function flowView(flow: FlowItem, executionResults: ExecutionResult[], warnings: string[]) {
  return {
    id: flow.flowId,
    userId: flow.userId,
    title: flow.title,
    description: flow.description,
    status: flow.status,
    scope: flow.scope,
    trigger: flow.trigger,
    scriptId: flow.scriptId,
    executionType: flow.executionType,
    prompt: flow.prompt,
    recommendedTools: flow.recommendedTools,
    approvalRequired: flow.approvalRequired ?? [],
    approvalAboveUsd: flow.approvalAboveUsd ?? null,
    mcpServers: flow.mcpServers ?? [],
    executionCount: flow.executionCount,
    executionResults: executionResults.map(resultView),
    lastExecutedAt: flow.lastExecutedAt,
    createdAt: flow.createdAt,
    updatedAt: flow.updatedAt,
    pausedAt: flow.pausedAt ?? null,
    resumedAt: flow.resumedAt ?? null,
    warnings,
  };
}

export type FlowView = ReturnType<typeof flowView>;

/** `now`, or just after `previous` if the clock has not passed it: `updatedAt` changes with every write (compiled conditions are cached by it). */
export const nextRevision = (previous: string, now: string) => (now > previous ? now : new Date(Date.parse(previous) + 1).toISOString());
