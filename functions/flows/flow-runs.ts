// Running a flow once, whatever triggered it: the interface's limits (10,000 executions per day, 10 at a time), the
// execution, its record in the history, and the failure policy (run-policy.ts).
import { ConflictError, NotFoundError, TooManyRequestsError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import type { RateLimiter } from '#platform/ports.js';
import { type KeptResult, storedTrigger } from './execution-store.js';
import type { Executor } from './executor.js';
import { type ExecutionResult, type FlowItem, continuedLogs, flowLimits, retryDelaysMs } from './model.js';
import { type FlowRunPolicyDeps, type RunTrigger, createFlowRunPolicy } from './run-policy.js';
import { flowRunRecord, startedFlowRun } from './run-records.js';
import type { FlowRef } from './store.js';

export type { RunTrigger } from './run-policy.js';

/** A run that holds its place: the flow as it started (its executionCount numbers the run), as JSON for the function invoked for it on AWS. */
export interface AdmittedFlowRun {
  flow: FlowItem;
  executionId: string;
  startedAt: string;
  trigger: RunTrigger;
  /** Set when the run continues after a wait: the durable engine's invocation number. */
  invocation?: number;
}

export interface FlowRunsDeps extends FlowRunPolicyDeps {
  executor: Executor;
  limiter: RateLimiter;
}

const dayMs = 86_400_000;
/** A slot older than this belongs to a worker that died mid-run (the execution limit plus a margin). */
const staleRunMs = (flowLimits.executionSeconds + 10) * 1000;

export function createFlowRuns(deps: FlowRunsDeps) {
  const { flows, clock } = deps;
  const policy = createFlowRunPolicy(deps);
  const { applyPolicy, settle } = policy;

  /** Daily limit, then a concurrency slot; refusals are errors the caller maps (429 over HTTP, a skipped delivery on the bus). */
  async function reserve(ref: FlowRef, executionId: string, startedAt: string, trigger: RunTrigger): Promise<FlowItem> {
    const now = clock.now();
    const window = await deps.limiter.hit(`flow-runs:${ref.flowId}`, flowLimits.executionsPerDay, dayMs / 1000, now);
    if (!window.allowed) {
      throw new TooManyRequestsError(
        'DAILY_LIMIT_EXCEEDED',
        `flow ${ref.flowId} has used its ${flowLimits.executionsPerDay} executions for today (UTC)`,
        Math.max(1, window.resetAt - Math.floor(now / 1000)),
        {
          assignmentId: ref.flowId,
        },
      );
    }
    const statuses = trigger.type === 'manual' || trigger.replayOf ? ['active', 'paused'] : ['active'];
    const start = () => flows.startRun(ref, { executionId, startedAt, statuses, firing: trigger.firing });
    let started = await start();
    if (started === 'busy') {
      const current = await flows.get(ref.flowId);
      const stale = Object.entries(current?.runs ?? {})
        .filter(([, at]) => at < clock.now() - staleRunMs)
        .map(([id]) => id);
      if (stale.length) {
        await flows.finishRun(ref.flowId, stale);
        started = await start();
      }
    }
    if (started === 'busy') {
      throw new TooManyRequestsError('CONCURRENCY_LIMIT', `flow ${ref.flowId} already runs ${flowLimits.concurrentExecutions} executions`, 5, {
        assignmentId: ref.flowId,
      });
    }
    if (started === 'gone') throw new NotFoundError('assignmentId', ref.flowId, 'flow');
    if (started === 'not_runnable') throw new ConflictError(`flow ${ref.flowId} is not active`, { assignmentId: ref.flowId });
    if (started === 'duplicate') throw new ConflictError(`the firing of flow ${ref.flowId} for ${trigger.firing} already ran`, { assignmentId: ref.flowId });
    return started;
  }

  /** What started a run, as its first lines say: a replay or re-run, a retry. */
  const startLines = (trigger: RunTrigger) => [
    ...(trigger.replayOf
      ? [trigger.fromStep === undefined ? `replay of execution ${trigger.replayOf}` : `re-run of execution ${trigger.replayOf} from step ${trigger.fromStep}`]
      : []),
    ...(trigger.attempt > 0 ? [`retry ${trigger.attempt} of ${retryDelaysMs.length} after the failure of execution ${trigger.originId}`] : []),
  ];

  /** Admitted (limits, a concurrency slot), executed, recorded, and the failure policy applied. */
  async function finish(admitted: AdmittedFlowRun): Promise<ExecutionResult> {
    const { flow, executionId, startedAt, trigger, invocation = 1 } = admitted;
    const { invocation: _invocation, ...payload } = admitted;
    if (invocation === 1) await deps.records.put(startedFlowRun(flow, executionId, startedAt, trigger));
    const result = await deps.executor.execute({
      flow,
      executionId,
      startedAt,
      data: trigger.data,
      eventType: trigger.eventType,
      durable: { invocation, payload: JSON.stringify(payload) },
    });
    // What started the run heads its first invocation's lines; a run continuing after a wait keeps them and adds its own.
    if (invocation > 1) Object.assign(result, continuedLogs(await deps.executions.getResult(flow.flowId, flow.executionCount, executionId), result.logs));
    else result.logs.unshift(...startLines(trigger));
    const kept: KeptResult = { result, executionNumber: flow.executionCount, trigger: storedTrigger(trigger) };
    // Cancelled while this invocation ran: the cancellation stands.
    if (!(await deps.records.put(flowRunRecord(flow, result, trigger)))) return result;
    if (!(await deps.executions.putResult(flow, flow.executionCount, result, kept.trigger))) return result;
    if (result.status !== 'waiting') {
      await applyPolicy(flow, trigger, result);
      return result;
    }
    // A waiting execution holds none of the flow's concurrent places: an llm flow's tool call waiting for its approval
    // continues through `resume`; a direct flow's durable script run may have ended before the waiting record was
    // written (its end event then found nothing to settle): settled here in that case.
    await flows.finishRun(flow.flowId, [executionId]);
    await settle(flow.flowId, kept);
    return result;
  }

  /** Takes the run's place (the refusals of `reserve` are thrown); `finish` runs it. */
  async function admit(ref: FlowRef, trigger: RunTrigger, executionId = newId('exe')): Promise<AdmittedFlowRun> {
    const startedAt = clock.nowIso();
    return { flow: await reserve(ref, executionId, startedAt, trigger), executionId, startedAt, trigger };
  }

  return {
    admit,
    finish,
    /** Continues a run whose tool call waited (the durable engine's resumer): invocation `invocation` of it. */
    resume: (payload: string, invocation: number) => finish({ ...(JSON.parse(payload) as AdmittedFlowRun), invocation }),
    scriptRunEnded: policy.scriptRunEnded,
    /** Gives back the place of an admitted run that never started. */
    release: async ({ flow, executionId }: AdmittedFlowRun) => void (await flows.finishRun(flow.flowId, [executionId])),
    /** Runs the flow now and records the result; throws only the refusals of `reserve`. */
    run: async (ref: FlowRef, trigger: RunTrigger, executionId?: string): Promise<ExecutionResult> => finish(await admit(ref, trigger, executionId)),
  };
}

export type FlowRuns = ReturnType<typeof createFlowRuns>;
