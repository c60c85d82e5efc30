// EventBridge Scheduler: one schedule per definition in the platform group, firing PutEvents onto the
// platform bus with the scheduler role (lib/scheduler.ts). The five-field cron becomes AWS's six-field form; a
// one-time firing is an `at(...)` schedule the service deletes after it fires.
import type { CreateScheduleCommandInput, SchedulerClient, SchedulerClientConfig } from '@aws-sdk/client-scheduler';
import { parseCron, toEventBridgeCron } from '#platform/cron.js';
import type { OneShotDefinition, ScheduleDefinition, SchedulerPort } from '#platform/ports.js';
import { envNames } from '#platform/env-names.js';
import { requiredSetting } from '#platform/settings.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const sdk = onFirstUse(() => import('@aws-sdk/client-scheduler'));

/** Context attribute EventBridge Scheduler replaces with the time the firing is for. */
const scheduledTime = '<aws.scheduler.scheduled-time>';

/** What the stack gives the functions that use the scheduler (and the bus its schedules put events on). */
export interface SchedulerResources {
  region: string;
  groupName: string | undefined;
  roleArn: string | undefined;
  busName: string | undefined;
}

const variables = { groupName: envNames.scheduleGroupName, roleArn: envNames.schedulerRoleArn, busName: envNames.eventBusName } as const;
const required = (resources: SchedulerResources, name: keyof typeof variables) =>
  requiredSetting(resources[name], variables[name], name === 'busName' ? 'eventBus' : 'scheduler');

/** The bus lives in the scheduler role's account and partition, in this region. */
function busArn(resources: SchedulerResources): string {
  const [, partition, , , account] = required(resources, 'roleArn').split(':');
  return `arn:${partition}:events:${resources.region}:${account}:event-bus/${required(resources, 'busName')}`;
}

function scheduleInput(resources: SchedulerResources, schedule: ScheduleDefinition): CreateScheduleCommandInput {
  const { expression, filter } = toEventBridgeCron(parseCron(schedule.cronExpression));
  const { type, userId, detail } = schedule.event;
  return {
    Name: schedule.name,
    GroupName: required(resources, 'groupName'),
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: schedule.enabled ? 'ENABLED' : 'DISABLED',
    Target: busTarget(resources, type, { ...detail, type, userId, source: 'scheduler', scheduledTime, ...(filter && { cronFilter: schedule.cronExpression }) }),
  };
}

/** `at()` takes a UTC wall-clock time to the second, without zone or fraction. */
const atExpression = (iso: string) => `at(${new Date(iso).toISOString().slice(0, 19)})`;

function oneShotInput(resources: SchedulerResources, once: OneShotDefinition): CreateScheduleCommandInput {
  const { type, userId, detail } = once.event;
  return {
    Name: once.name,
    GroupName: required(resources, 'groupName'),
    ScheduleExpression: atExpression(once.at),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    State: 'ENABLED',
    Target: busTarget(resources, type, { ...detail, type, userId, source: 'scheduler', scheduledTime: once.at }),
  };
}

/** Every platform schedule, recurring or one-time, puts its event on the platform bus. */
function busTarget(resources: SchedulerResources, type: string, payload: Record<string, unknown>): NonNullable<CreateScheduleCommandInput['Target']> {
  return {
    Arn: busArn(resources),
    RoleArn: required(resources, 'roleArn'),
    EventBridgeParameters: { Source: 'platform.scheduler', DetailType: type },
    Input: JSON.stringify(payload),
    // A firing the bus cannot take is retried for an hour; later ones would be late for their minute anyway.
    RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 20 },
  };
}

/** Creates the schedule, or replaces the one of the same name. */
async function upsertSchedule(client: SchedulerClient, input: CreateScheduleCommandInput): Promise<void> {
  const { CreateScheduleCommand, UpdateScheduleCommand } = await sdk();
  try {
    await client.send(new CreateScheduleCommand(input));
  } catch (error) {
    if ((error as Error).name !== 'ConflictException') throw error;
    await client.send(new UpdateScheduleCommand(input));
  }
}

/** Deletes the schedule; one that is already gone is not an error. */
async function deleteSchedule(client: SchedulerClient, resources: SchedulerResources, name: string): Promise<void> {
  const { DeleteScheduleCommand } = await sdk();
  try {
    await client.send(new DeleteScheduleCommand({ Name: name, GroupName: required(resources, 'groupName') }));
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
}

export function createEventBridgeScheduler(config: SchedulerClientConfig, resources: SchedulerResources): SchedulerPort {
  const client = onFirstUse(async () => traced(new (await sdk()).SchedulerClient(config)));
  return {
    put: async (schedule) => upsertSchedule(await client(), scheduleInput(resources, schedule)),
    putOnce: async (once) => upsertSchedule(await client(), oneShotInput(resources, once)),
    remove: async (name) => deleteSchedule(await client(), resources, name),
  };
}
