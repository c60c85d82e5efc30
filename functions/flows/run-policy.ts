// What a flow run's end means for its flow, whoever sees the end: the run that ended at once (flow-runs.ts), or the
// end of the durable script run a waiting flow run waits on, heard where that child run ended (functions/app/run-tree.ts).
// The failure policy: retries after 1, 5, 15 and 60 minutes, then the flow pauses; three failures in a row of a direct
// flow's script pause it sooner; the owner is notified. A configuration failure (unretriableCodes) is neither retried nor
// pauses the flow.
import type { Clock } from '#platform/clock.js';
import type { Execution } from '#functions/scripts/model.js';
import { logger } from '#platform/logger.js';
import type { EventPublisher, SchedulerPort } from '#platform/ports.js';
import type { ExecutionStore, KeptResult } from './execution-store.js';
import { flowPausedType, flowRetryType, flowSchedule, retryName } from './internal-events.js';
import { type ExecutionResult, type FlowItem, retryDelaysMs, scriptFailuresToPause, unretriableCodes } from './model.js';
import type { FlowRunRecords, FlowScriptRunner } from './ports.js';
import { flowRunEnd } from './run-records.js';
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
  /** A manual run an MCP client asked for (a flow tool): the name it gave in its clientInfo. */
  client?: string;
}

/** A script run's end as a flow run waiting on it reads it; undefined while it runs or waits. */
export function scriptRunEnd(run: Execution, nowIso: string): Awaited<ReturnType<FlowScriptRunner['ended']>> {
  if (run.status === 'running' || run.status === 'waiting') return undefined;
  return {
    executionId: run.executionId,
    status: run.status === 'success' ? 'success' : 'error',
    output: run.output,
    error: run.error && { code: run.error.code, message: run.error.message },
    cost: run.cost,
    finishedAt: run.finishedAt ?? nowIso,
  };
}

export interface FlowRunPolicyDeps {
  flows: FlowStore;
  executions: ExecutionStore;
  records: FlowRunRecords;
  /** The end of a durable script run a waiting flow run waits on. */
  scripts: Pick<FlowScriptRunner, 'ended'>;
  scheduler: SchedulerPort;
  publisher: EventPublisher;
  clock: Clock;
}

export function createFlowRunPolicy(deps: FlowRunPolicyDeps) {
  const { flows, clock } = deps;

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
    const unretriable = result.error !== undefined && unretriableCodes.has(result.error.code);
    const chainEnds =
      succeeded || failures === undefined || unretriable || (direct && failures >= scriptFailuresToPause) || trigger.attempt >= retryDelaysMs.length;
    if (!chainEnds) await scheduleRetry(flow, trigger, originId, trigger.attempt + 1);
    else if (trigger.originId) await deps.executions.deleteRetry(flow.flowId, trigger.originId);
    if (succeeded || failures === undefined || unretriable) return;
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

  return {
    applyPolicy,
    settle,
    /** A durable script run a flow started ended: the flow's waiting run on it settles. */
    async scriptRunEnded(ref: FlowRef, scriptExecutionId: string): Promise<void> {
      const kept = await deps.executions.findWaiting(ref.flowId, scriptExecutionId);
      const flow = kept && (await flows.get(ref.flowId));
      if (kept && flow?.userId === ref.userId) await settle(ref.flowId, kept);
    },
  };
}

export type FlowRunPolicy = ReturnType<typeof createFlowRunPolicy>;
