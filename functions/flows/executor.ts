// One execution of a flow: `direct` runs its script, `llm` runs the agent with the recommended tools; either way
// within the interface's 300 seconds, after which the execution is recorded as failed with TIMEOUT.
import { performance } from 'node:perf_hooks';
import type { Clock } from '#platform/clock.js';
import { AppError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { type ApprovalRules, passingSteps, runAgent } from './llm-agent.js';
import { type ExecutionResult, type FlowItem, configureModelHint, flowLimits } from './model.js';
import type { AgentSteps, DurableFlowRuns, FlowScriptRunner, LanguageModel, ToolCatalog } from './ports.js';

/** A timer that can be replaced in tests, so they drive the deadline instead of waiting for it. */
export type Deadline = (ms: number) => { expired: Promise<void>; clear(): void };

export const realDeadline: Deadline = (ms) => {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return { expired, clear: () => clearTimeout(timer) };
};

export const realWait = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

export interface ExecutorDeps {
  scripts: FlowScriptRunner;
  tools: ToolCatalog;
  model: () => LanguageModel | undefined;
  /** Runs the agent loop of an llm flow whose tool calls may wait for approval. */
  durable: Pick<DurableFlowRuns, 'run'>;
  clock: Clock;
  deadline: Deadline;
  /** Pause before asking a busy script again; tests pass one that does not wait. */
  wait: (ms: number) => Promise<void>;
}

/** First and longest pause while a script is busy with its 10 concurrent runs elsewhere. */
const busyScriptBackoffMs = { first: 200, max: 5000 } as const;

export interface RunInput {
  flow: FlowItem;
  executionId: string;
  /** When the run was admitted: the result's timestamp and the flow's lastExecutedAt. */
  startedAt: string;
  /** What triggered it: the event object, the schedule firing, or the manual request. */
  data: unknown;
  eventType?: string;
  /** The invocation of the run (more than 1 when it continues after an approval) and what a resumer gets back. */
  durable: { invocation: number; payload: string };
}

type Outcome = Pick<ExecutionResult, 'status' | 'result' | 'logs' | 'cost' | 'error' | 'scriptExecutionId'>;

const failed = (code: string, message: string, logs: string[] = [], cost = 0): Outcome => ({
  status: 'failed',
  result: null,
  error: { code, message },
  logs,
  cost,
});

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

export function createExecutor(deps: ExecutorDeps) {
  /** The script's run; while the script is busy elsewhere (CONCURRENCY_LIMIT), waits and asks again within the deadline. */
  async function runScript(request: Parameters<FlowScriptRunner['run']>[0], deadlineMs: number, logs: string[]) {
    for (let pause: number = busyScriptBackoffMs.first; ; pause = Math.min(pause * 2, busyScriptBackoffMs.max)) {
      try {
        return await deps.scripts.run(request);
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'CONCURRENCY_LIMIT') || deps.clock.now() + pause >= deadlineMs) throw error;
        logs.push(`script ${request.scriptId} is busy; asking again in ${pause} ms`);
        await deps.wait(pause);
      }
    }
  }

  async function direct({ flow, executionId, data, eventType }: RunInput, deadlineMs: number): Promise<Outcome> {
    if (!flow.scriptId) return failed('NO_SCRIPT', 'this direct flow names no script');
    const waits: string[] = [];
    try {
      const run = await runScript(
        { scriptId: flow.scriptId, userId: flow.userId, data, flowId: flow.flowId, eventType, parent: { parentExecutionId: executionId } },
        deadlineMs,
        waits,
      );
      const logs = [...waits, `script ${flow.scriptId} execution ${run.executionId}: ${run.status}${run.noOp ? ' (no-op)' : ''}`, ...run.logs];
      if (run.status === 'success') return { status: 'success', result: run.output, logs, cost: run.cost };
      // A durable script suspended: the execution waits for the run's end (FlowRuns.settle).
      if (run.status === 'waiting') return { status: 'waiting', result: null, logs, cost: run.cost, scriptExecutionId: run.executionId };
      const error = run.error ?? { code: run.status === 'timeout' ? 'TIMEOUT' : 'SCRIPT_ERROR', message: `the script ended with ${run.status}` };
      return { ...failed(error.code, error.message, logs, run.cost), result: run.output };
    } catch (error) {
      // Refused before it ran: not deployed, daily limit, budget.
      if (error instanceof AppError) return failed(error.code, error.message, [...waits, `script ${flow.scriptId} refused: ${error.code}`]);
      throw error;
    }
  }

  async function llm({ flow, data, executionId, durable }: RunInput, deadlineMs: number): Promise<Outcome> {
    const model = deps.model();
    if (!model) {
      return failed('LLM_NOT_CONFIGURED', `no language model is configured: ${configureModelHint}`);
    }
    // An llm time flow names its script as the interface asks: the model is offered it beside the recommended tools.
    const offered = flow.scriptId && !flow.recommendedTools.includes(flow.scriptId) ? [flow.scriptId, ...flow.recommendedTools] : flow.recommendedTools;
    const { tools, unknown } = await deps.tools.resolve(flow.userId, offered, flow.flowId, flow.mcpServers, executionId);
    const approval: ApprovalRules | undefined =
      flow.approvalRequired?.length || flow.approvalAboveUsd !== undefined
        ? { required: flow.approvalRequired ?? [], ...(flow.approvalAboveUsd !== undefined && { aboveUsd: flow.approvalAboveUsd }) }
        : undefined;
    const agent = (steps: AgentSteps) =>
      runAgent({
        model,
        prompt: flow.prompt ?? '',
        trigger: data,
        tools,
        unknownTools: unknown,
        remainingMs: () => deadlineMs - deps.clock.now(),
        steps,
        approval,
        flowTitle: flow.title,
      });
    let outcome;
    if (!approval) outcome = await agent(passingSteps);
    else {
      const ran = await deps.durable.run(
        { executionId, userId: flow.userId, flowId: flow.flowId, payload: durable.payload, runningUntil: new Date(deadlineMs).toISOString() },
        durable.invocation,
        agent,
      );
      if (ran.suspended)
        return { status: 'waiting', result: null, logs: ['a tool call waits for its approval; the run continues after the decision'], cost: 0 };
      outcome = ran.value;
    }
    return outcome.ok
      ? { status: 'success', result: outcome.result, logs: outcome.logs, cost: outcome.cost }
      : failed(outcome.error!.code, outcome.error!.message, outcome.logs, outcome.cost);
  }

  return {
    /** Never throws for the flow's own failures: they come back as a failed result. */
    async execute(input: RunInput): Promise<ExecutionResult> {
      // A run continued after an approval has the execution's time again from now.
      const deadlineMs = (input.durable.invocation > 1 ? deps.clock.now() : Date.parse(input.startedAt)) + flowLimits.executionSeconds * 1000;
      const started = performance.now();
      const deadline = deps.deadline(flowLimits.executionSeconds * 1000);
      const work = input.flow.executionType === 'direct' ? direct(input, deadlineMs) : llm(input, deadlineMs);
      let outcome: Outcome;
      try {
        outcome = await Promise.race([
          work,
          deadline.expired.then(() => failed('TIMEOUT', `the flow execution exceeded ${flowLimits.executionSeconds} seconds`)),
        ]);
      } catch (error) {
        // The durable engine's own refusal (a DURABLE_* code: a bound, a departed journal) fails the run with its code.
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('DURABLE_')) outcome = failed(code, (error as Error).message);
        // Infrastructure trouble (a store, the script runtime) fails this execution; the retries of the failure policy follow.
        else {
          logger.error('flow execution failed unexpectedly', { flowId: input.flow.flowId, executionId: input.executionId, error: String(error) });
          outcome = failed('INTERNAL_ERROR', 'the execution failed unexpectedly');
        }
      } finally {
        deadline.clear();
      }
      const { status, result, logs, cost, error, scriptExecutionId } = outcome;
      return {
        executionId: input.executionId,
        timestamp: input.startedAt,
        status,
        duration: round(performance.now() - started, 2),
        cost: round(cost, 6),
        logs: logs.slice(0, 200).map((line) => line.slice(0, 2000)),
        result,
        ...(error && { error }),
        ...(scriptExecutionId && { scriptExecutionId }),
      };
    },
  };
}

export type Executor = ReturnType<typeof createExecutor>;
