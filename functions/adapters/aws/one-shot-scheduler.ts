// One-time EventBridge Scheduler schedules (`at(...)`) in the platform group, deleted by the service after they
// fire, putting their event on the platform bus exactly as the recurring schedules of scheduler.ts do.
import {
  type CreateScheduleCommandInput,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  SchedulerClient,
  type SchedulerClientConfig,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import type { OneShotDefinition, OneShotSchedulerPort } from '#platform/ports.js';
import { busArn, required } from './scheduler.js';

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
    Target: {
      Arn: busArn(),
      RoleArn: required('SCHEDULER_ROLE_ARN'),
      EventBridgeParameters: { Source: 'platform.scheduler', DetailType: type },
      Input: JSON.stringify({ ...detail, type, userId, source: 'scheduler', scheduledTime: once.at }),
      RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 20 },
    },
  };
}

export function createEventBridgeOneShots(config: SchedulerClientConfig = {}): OneShotSchedulerPort {
  let cached: SchedulerClient | undefined;
  const client = () => (cached ??= new SchedulerClient(config));
  return {
    async putOnce(once) {
      const input = oneShotInput(once);
      try {
        await client().send(new CreateScheduleCommand(input));
      } catch (error) {
        if ((error as Error).name !== 'ConflictException') throw error;
        await client().send(new UpdateScheduleCommand(input));
      }
    },
    async cancel(name) {
      try {
        await client().send(new DeleteScheduleCommand({ Name: name, GroupName: required('SCHEDULE_GROUP_NAME') }));
      } catch (error) {
        if ((error as Error).name !== 'ResourceNotFoundException') throw error;
      }
    },
  };
}

export const eventBridgeOneShots = createEventBridgeOneShots();
