// One-time EventBridge Scheduler schedules (`at(...)`) in the platform group, deleted by the service after they
// fire, putting their event on the platform bus exactly as the recurring schedules of scheduler.ts do.
import { type CreateScheduleCommandInput, SchedulerClient, type SchedulerClientConfig } from '@aws-sdk/client-scheduler';
import type { OneShotDefinition, OneShotSchedulerPort } from '#platform/ports.js';
import { busTarget, deleteSchedule, required, upsertSchedule } from './scheduler.js';
import { traced } from '#platform/tracer.js';

/** `at()` takes a UTC wall-clock time to the second, without zone or fraction. */
const atExpression = (iso: string) => `at(${new Date(iso).toISOString().slice(0, 19)})`;

export function oneShotInput(once: OneShotDefinition): CreateScheduleCommandInput {
  const { type, userId, detail } = once.event;
  return {
    Name: once.name,
    GroupName: required('SCHEDULE_GROUP_NAME'),
    ScheduleExpression: atExpression(once.at),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    State: 'ENABLED',
    Target: busTarget(type, { ...detail, type, userId, source: 'scheduler', scheduledTime: once.at }),
  };
}

export function createEventBridgeOneShots(config: SchedulerClientConfig = {}): OneShotSchedulerPort {
  let cached: SchedulerClient | undefined;
  const client = () => (cached ??= traced(new SchedulerClient(config)));
  return {
    putOnce: (once) => upsertSchedule(client(), oneShotInput(once)),
    cancel: (name) => deleteSchedule(client(), name),
  };
}

export const eventBridgeOneShots = createEventBridgeOneShots();
