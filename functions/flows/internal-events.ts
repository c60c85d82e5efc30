// What the flows area puts on the platform bus: firings of its schedules (the `platform.` namespace, refused for
// events published by users) and the notice to the owner when a flow pauses itself.
import type { ScheduleDefinition } from '#platform/ports.js';

/** A time flow's schedule firing; detail `{flowId}` plus `scheduledTime` and maybe `cronFilter`. */
export const flowScheduleType = 'platform.flow_schedule';
/** A retry coming due (a one-shot); detail `{flowId, originId, attempt}`. */
export const flowRetryType = 'platform.flow_retry';
/** A replayed or re-run execution to run; detail `{flowId, executionId, replayOf, fromStep?, trigger}` (a StoredTrigger). */
export const flowReplayType = 'platform.flow_replay';
/** When the failure policy pauses a flow, the owner is notified; scripts can subscribe to it. */
export const flowPausedType = 'system.flow_paused';

/** One schedule per flow, in the platform group next to script schedules. */
export const flowScheduleName = (flowId: string) => `flow-${flowId}`;
export const retryName = (originId: string, attempt: number) => `flow-retry-${originId}-${attempt}`;

/** The schedule of a time flow as the SchedulerPort takes it. */
export function flowSchedule(flow: { flowId: string; userId: string; cronExpression: string }, enabled: boolean): ScheduleDefinition {
  return {
    name: flowScheduleName(flow.flowId),
    cronExpression: flow.cronExpression,
    enabled,
    event: { type: flowScheduleType, userId: flow.userId, detail: { flowId: flow.flowId } },
  };
}
