// Running a flow once, whatever triggered it: the interface's limits (10,000 executions per day, 10 at a time), the
// execution, its record in the history, and the failure policy: retries after 1, 5, 15 and 60 minutes, then
// the flow pauses; three failures in a row of a direct flow's script pause it sooner; the owner is notified.
import type { Clock } from '#platform/clock.js';
import { ConflictError, NotFoundError, TooManyRequestsError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import { logger } from '#platform/logger.js';
import type { EventPublisher, RateLimiter, SchedulerPort } from '#platform/ports.js';
import { type ExecutionStore, type KeptResult, storedTrigger } from './execution-store.js';
import type { Executor } from './executor.js';
import { flowPausedType, flowRetryType, flowSchedule, retryName } from './internal-events.js';
import { type ExecutionResult, type FlowItem, flowLimits, retryDelaysMs, scriptFailuresToPause } from './model.js';
import type { FlowRunRecords, FlowScriptRunner } from './ports.js';
import { flowRunEnd, flowRunRecord, startedFlowRun } from './run-records.js';
import type { FlowRef, FlowStore } from './store.js';

export interface RunTrigger {
  type: 'time' | 'event' | 'manual';
  eventType?: string;
  data: unknown;
  /** 0 for a first attempt; n for the nth retry. */
  attempt: number;
  /** The execution whose failure started the retries. */
  originId?: string;
  /** A schedule firing's minute: the run's first write claims it, so a redelivered firing does not run twice. */
  firing?: string;
  /** The execution a replay or re-run runs again: like a manual run, it may run a paused flow and starts no retries. */
  replayOf?: string;
  /** A re-run's first step to run: the steps before it were given the stored results of `replayOf`'s. */
  fromStep?: string;
}

/** A run that holds its place: the flow as it started (its executionCount numbers the run), as JSON for the function invoked for it on AWS. */
export interface AdmittedFlowRun {
  flow: FlowItem;
  executionId: string;
  startedAt: string;
  trigger: RunTrigger;
  /** Set when the run continues after a wait: the durable engine's invocation number. */
  invocation?: number;
}

export interface FlowRunsDeps {
  flows: FlowStore;
  executions: ExecutionStore;
  /** The platform's one run record, beside the flow's own ring of its last 100. */
  records: FlowRunRecords;
  executor: Executor;
  /** The end of a durable script run a waiting execution waits on. */
  scripts: Pick<FlowScriptRunner, 'ended'>;
  scheduler: SchedulerPort;
  publisher: EventPublisher;
  limiter: RateLimiter;
  clock: Clock;
}

const dayMs = 86_400_000;
/** A slot older than this belongs to a worker that died mid-run (the execution limit plus a margin). */
const staleRunMs = (flowLimits.executionSeconds + 10) * 1000;

export function createFlowRuns(deps: FlowRunsDeps) {
  const { flows, clock } = deps;

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

  async function pause(flow: FlowItem, reason: string, result: ExecutionResult) {
    const pausedAt = clock.nowIso();
    if (!(await flows.pauseActive(flow, pausedAt))) return;
    if (flow.trigger.type === 'time') await deps.scheduler.put(flowSchedule({ ...flow, cronExpression: flow.trigger.config.cronExpression }, false));
    const why =
      reason === 'script_failures' ? `its script failed ${scriptFailuresToPause} times in a row` : `it failed again after ${retryDelaysMs.length} retries`;
    await deps.publisher.publish({
      type: flowPausedType,
      source: 'flows',
      userId: flow.userId,
      content: { text: `Your flow "${flow.title}" was paused because ${why}. Last error: ${result.error?.message ?? 'unknown'}` },
      data: { flowId: flow.flowId, title: flow.title, reason, executionId: result.executionId, error: result.error ?? null, pausedAt },
    });
    logger.info('flow paused by its failure policy', { flowId: flow.flowId, reason });
  }

  async function scheduleRetry(flow: FlowItem, trigger: RunTrigger, originId: string, attempt: number) {
    const dueAt = new Date(clock.now() + retryDelaysMs[attempt - 1]!).toISOString();
    await deps.executions.putRetry({
      flowId: flow.flowId,
      originId,
      userId: flow.userId,
      attempt,
      trigger: { type: trigger.type, eventType: trigger.eventType },
      data: trigger.data,
      dueAt,
    });
    await deps.scheduler.putOnce({
      name: retryName(originId, attempt),
      at: dueAt,
      event: { type: flowRetryType, userId: flow.userId, detail: { flowId: flow.flowId, originId, attempt } },
    });
  }

  /** What a finished execution means for the flow. Manual runs are recorded but never retried or counted. */
  async function applyPolicy(flow: FlowItem, trigger: RunTrigger, result: ExecutionResult) {
    const direct = flow.executionType === 'direct';
    const manual = trigger.type === 'manual' || trigger.replayOf !== undefined;
    const succeeded = result.status === 'success';
    const failures = await flows.finishRun(flow.flowId, [result.executionId], manual || !direct ? undefined : succeeded ? 'reset' : 'count');
    if (manual) return;
    const originId = trigger.originId ?? result.executionId;
    const chainEnds = succeeded || failures === undefined || (direct && failures >= scriptFailuresToPause) || trigger.attempt >= retryDelaysMs.length;
    if (!chainEnds) await scheduleRetry(flow, trigger, originId, trigger.attempt + 1);
    else if (trigger.originId) await deps.executions.deleteRetry(flow.flowId, trigger.originId);
    if (succeeded || failures === undefined) return;
    if (direct && failures >= scriptFailuresToPause) await pause(flow, 'script_failures', result);
    else if (trigger.attempt >= retryDelaysMs.length) await pause(flow, 'retries_exhausted', result);
  }

  /**
   * A waiting execution's end, from the script run it waits on, recorded once (whoever comes second finds it settled),
   * then the failure policy as for any execution. False while that run has not ended.
   */
  async function settle(flowId: string, kept: KeptResult): Promise<boolean> {
    const waiting = kept.result;
    const ended = waiting.scriptExecutionId && (await deps.scripts.ended(waiting.scriptExecutionId));
    if (!ended) return false;
    const result: ExecutionResult = {
      ...waiting,
      status: ended.status === 'success' ? 'success' : 'failed',
      duration: Math.max(waiting.duration, Date.parse(ended.finishedAt) - Date.parse(waiting.timestamp)),
      cost: Math.round(ended.cost * 1e6) / 1e6,
      logs: [...waiting.logs, `script execution ${ended.executionId}: ${ended.status}`].slice(0, 200),
      result: ended.output,
      ...(ended.status !== 'success' && { error: ended.error ?? { code: 'SCRIPT_ERROR', message: 'the script ended with error' } }),
    };
    if (!(await deps.executions.settle(flowId, kept, result))) return true;
    await deps.records.end(result.executionId, flowRunEnd(result));
    const flow = await flows.get(flowId);
    const stored = kept.trigger;
    if (flow && stored) {
      const trigger: RunTrigger = {
        type: stored.type,
        eventType: stored.eventType,
        data: stored.dataJson === undefined ? null : JSON.parse(stored.dataJson),
        attempt: stored.attempt,
        originId: stored.originId,
      };
      await applyPolicy(flow, trigger, result);
    }
    return true;
  }

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
    if (trigger.attempt > 0) result.logs.unshift(`retry ${trigger.attempt} of ${retryDelaysMs.length} after the failure of execution ${trigger.originId}`);
    if (trigger.replayOf)
      result.logs.unshift(
        trigger.fromStep === undefined ? `replay of execution ${trigger.replayOf}` : `re-run of execution ${trigger.replayOf} from step ${trigger.fromStep}`,
      );
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
    /** A durable script run a flow started ended: the flow's waiting execution on it settles. */
    async scriptRunEnded(ref: FlowRef, scriptExecutionId: string): Promise<void> {
      const kept = await deps.executions.findWaiting(ref.flowId, scriptExecutionId);
      const flow = kept && (await flows.get(ref.flowId));
      if (kept && flow?.userId === ref.userId) await settle(ref.flowId, kept);
    },
    /** Gives back the place of an admitted run that never started. */
    release: async ({ flow, executionId }: AdmittedFlowRun) => void (await flows.finishRun(flow.flowId, [executionId])),
    /** Runs the flow now and records the result; throws only the refusals of `reserve`. */
    run: async (ref: FlowRef, trigger: RunTrigger, executionId?: string): Promise<ExecutionResult> => finish(await admit(ref, trigger, executionId)),
  };
}

export type FlowRuns = ReturnType<typeof createFlowRuns>;
