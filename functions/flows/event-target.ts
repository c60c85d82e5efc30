// The event-flow kind of the trigger pipeline: an event matching an active event flow's condition tree runs the flow
// (one indexed Query for the candidates; conditions compiled once per flow revision, in the pipeline's cache). Time
// flows' schedule firings and retries coming due are this kind's internal deliveries. A redelivered firing, retry
// or event never runs a flow twice: events and retries are claimed in the pipeline's ledger, schedule minutes by
// the run's first write on the flow (FlowStore.startRun).
import { type Candidate, type TargetDelivery, type TargetKind, emptyReport } from '#functions/events/api.js';
import { firingIsDue } from '#platform/cron.js';
import { compileFlowConditions } from './conditions.js';
import type { ExecutionStore, StoredTrigger } from './execution-store.js';
import type { FlowRuns, RunTrigger } from './flow-runs.js';
import { flowReplayType, flowRetryType, flowScheduleType } from './internal-events.js';
import type { FlowItem } from './model.js';
import type { FlowRef, FlowStore } from './store.js';

export interface FlowEventTargetDeps {
  flows: Pick<FlowStore, 'activeForEvent'>;
  executions: Pick<ExecutionStore, 'getRetry' | 'deleteRetry'>;
  runs: Pick<FlowRuns, 'run'>;
}

/** The flow is gone, paused, or the firing already ran: nothing to run. */
const skippedCodes: ReadonlySet<string> = new Set(['NOT_FOUND', 'CONFLICT']);

export function createFlowEventTarget(deps: FlowEventTargetDeps): TargetKind {
  const delivery = (deliveryId: string, flow: FlowRef, trigger: RunTrigger): TargetDelivery => ({
    deliveryId,
    run: () => deps.runs.run(flow, trigger),
    claimedByRun: trigger.firing !== undefined,
  });

  const candidate = (flow: FlowItem): Candidate => ({
    id: flow.flowId,
    revision: flow.updatedAt,
    compile: () => (flow.trigger.type === 'event' ? compileFlowConditions(flow.trigger.config.rootCondition, flow.trigger.config.eventType) : () => false),
    delivery: ({ enriched }) =>
      delivery(
        `${enriched.id}#${flow.flowId}`,
        { flowId: flow.flowId, userId: flow.userId },
        { type: 'event', eventType: enriched.type, data: enriched, attempt: 0 },
      ),
  });

  return {
    name: 'flow',
    skippedCodes,
    candidates: async (userId, eventType) => (await deps.flows.activeForEvent(userId, eventType)).map(candidate),
    internal: {
      /** A time flow's firing starts its run without reading the flow first: the run's first write checks owner and state. */
      [flowScheduleType]: {
        source: 'scheduler',
        async handle(detail, deliver) {
          if (!firingIsDue(detail)) return emptyReport();
          const flow = { flowId: String(detail.flowId), userId: String(detail.userId) };
          const scheduledTime = String(detail.scheduledTime);
          return deliver([
            delivery(`flow#${flow.flowId}@${scheduledTime}`, flow, {
              type: 'time',
              data: { flowId: flow.flowId, scheduledTime },
              attempt: 0,
              firing: scheduledTime,
            }),
          ]);
        },
      },
      /** A replayed or re-run execution runs under the id the operation answered, claimed once in the ledger. */
      [flowReplayType]: {
        source: 'flows',
        async handle(detail, deliver) {
          const stored = detail.trigger as StoredTrigger;
          const executionId = String(detail.executionId);
          const trigger: RunTrigger = {
            type: stored.type,
            eventType: stored.eventType,
            data: JSON.parse(stored.dataJson ?? 'null'),
            attempt: 0,
            replayOf: String(detail.replayOf),
            ...(detail.fromStep !== undefined && { fromStep: String(detail.fromStep) }),
          };
          const flow = { flowId: String(detail.flowId), userId: String(detail.userId) };
          return deliver([{ deliveryId: `flow-replay#${executionId}`, run: () => deps.runs.run(flow, trigger, executionId) }]);
        },
      },
      [flowRetryType]: {
        source: 'scheduler',
        async handle(detail, deliver) {
          const retry = await deps.executions.getRetry(String(detail.flowId), String(detail.originId));
          if (!retry || retry.attempt !== detail.attempt || retry.userId !== detail.userId) return { ...emptyReport(), skipped: 1 };
          const trigger: RunTrigger = {
            type: retry.trigger.type,
            eventType: retry.trigger.eventType,
            data: retry.data,
            attempt: retry.attempt,
            originId: retry.originId,
          };
          const report = await deliver([delivery(`flow-retry#${retry.originId}#${retry.attempt}`, { flowId: retry.flowId, userId: retry.userId }, trigger)]);
          // Paused or deleted meanwhile: the retries end here.
          if (report.skipped) await deps.executions.deleteRetry(retry.flowId, retry.originId);
          return report;
        },
      },
    },
  };
}
