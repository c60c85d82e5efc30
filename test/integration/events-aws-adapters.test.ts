import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateScheduleGroupCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventBridgePublisher } from '../../functions/adapters/aws/event-bus.js';
import { createEventBridgeScheduler } from '../../functions/adapters/aws/scheduler.js';
import { schedulerResources } from '../../functions/app/aws-ports.js';
import { parsePlatformSettings } from '../../functions/app/platform.js';
import type { ScheduleDefinition } from '../../functions/platform/ports.js';
import { type Moto, startMoto } from '../support/moto.js';

let moto: Moto;
const account = '123456789012';

beforeAll(async () => {
  moto = await startMoto();
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_ENDPOINT_URL_EVENTBRIDGE: moto.endpoint,
    EVENT_BUS_NAME: 'platform-events',
    SCHEDULE_GROUP_NAME: 'platform',
    SCHEDULER_ROLE_ARN: `arn:aws:iam::${account}:role/platform-scheduler`,
  });
  await new SchedulerClient(moto.clientConfig).send(new CreateScheduleGroupCommand({ Name: 'platform' }));
  await new EventBridgeClient(moto.clientConfig).send(new CreateEventBusCommand({ Name: 'platform-events' }));
});
afterAll(() => moto.stop());

const definition = (overrides: Partial<ScheduleDefinition> = {}): ScheduleDefinition => ({
  name: `script-sch_${Math.random().toString(36).slice(2)}`,
  cronExpression: '30 9 * * 1-5',
  enabled: true,
  event: { type: 'platform.script_schedule', userId: 'usr_1', detail: { scheduleId: 'sch_1' } },
  ...overrides,
});

describe('aws adapter: EventBridge Scheduler', () => {
  it('creates a UTC schedule in the platform group that puts the firing on the platform bus', async () => {
    // Prepare
    const scheduler = createEventBridgeScheduler(moto.clientConfig, schedulerResources(parsePlatformSettings(process.env).kernel));
    const schedule = definition();
    // Act
    await scheduler.put(schedule);
    const stored = await new SchedulerClient(moto.clientConfig).send(new GetScheduleCommand({ Name: schedule.name, GroupName: 'platform' }));
    // Assess
    expect(stored).toMatchObject({
      ScheduleExpression: 'cron(30 9 ? * 2-6 *)',
      ScheduleExpressionTimezone: 'UTC',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: `arn:aws:events:us-east-1:${account}:event-bus/platform-events`,
        RoleArn: `arn:aws:iam::${account}:role/platform-scheduler`,
        EventBridgeParameters: { Source: 'platform.scheduler', DetailType: 'platform.script_schedule' },
      },
    });
    expect(JSON.parse(stored.Target!.Input!)).toEqual({
      scheduleId: 'sch_1',
      type: 'platform.script_schedule',
      userId: 'usr_1',
      source: 'scheduler',
      scheduledTime: '<aws.scheduler.scheduled-time>',
    });
  });

  it('replaces a schedule of the same name, and asks the runner to filter what AWS cannot express', async () => {
    // Prepare
    const scheduler = createEventBridgeScheduler(moto.clientConfig, schedulerResources(parsePlatformSettings(process.env).kernel));
    const schedule = definition();
    await scheduler.put(schedule);
    // Act
    await scheduler.put({ ...schedule, cronExpression: '0 0 13 * 5', enabled: false });
    const stored = await new SchedulerClient(moto.clientConfig).send(new GetScheduleCommand({ Name: schedule.name, GroupName: 'platform' }));
    // Assess
    expect(stored).toMatchObject({ ScheduleExpression: 'cron(0 0 * * ? *)', State: 'DISABLED' });
    expect(JSON.parse(stored.Target!.Input!)).toMatchObject({ cronFilter: '0 0 13 * 5' });
  });

  it('deletes a schedule, and deleting it again is not an error', async () => {
    // Prepare
    const scheduler = createEventBridgeScheduler(moto.clientConfig, schedulerResources(parsePlatformSettings(process.env).kernel));
    const schedule = definition();
    await scheduler.put(schedule);
    // Act
    await scheduler.remove(schedule.name);
    const [again, lookup] = await Promise.allSettled([
      scheduler.remove(schedule.name),
      new SchedulerClient(moto.clientConfig).send(new GetScheduleCommand({ Name: schedule.name, GroupName: 'platform' })),
    ]);
    // Assess
    expect(again).toEqual({ status: 'fulfilled', value: undefined });
    expect(lookup).toMatchObject({ status: 'rejected', reason: { name: 'ResourceNotFoundException' } });
  });
});

describe('aws adapter: EventBridge publisher', () => {
  it('puts events on the platform bus where a rule on the platform sources routes them', async () => {
    // Prepare
    const sqs = new SQSClient(moto.clientConfig);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `dispatch-${Date.now()}` }));
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    const events = new EventBridgeClient(moto.clientConfig);
    await events.send(
      new PutRuleCommand({ Name: 'dispatcher', EventBusName: 'platform-events', EventPattern: JSON.stringify({ source: [{ prefix: 'platform.' }] }) }),
    );
    await events.send(new PutTargetsCommand({ Rule: 'dispatcher', EventBusName: 'platform-events', Targets: [{ Id: 'queue', Arn: Attributes!.QueueArn }] }));
    // Act
    const { eventId } = await eventBridgePublisher('platform-events').publish({
      type: 'chatapp.message',
      source: 'chatapp',
      userId: 'usr_1',
      content: { text: 'hi' },
    });
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 }));
    // Assess
    const delivered = JSON.parse(Messages![0]!.Body!);
    expect(delivered).toMatchObject({
      source: 'platform.chatapp',
      'detail-type': 'chatapp.message',
      detail: { id: eventId, type: 'chatapp.message', userId: 'usr_1', content: { text: 'hi' } },
    });
  });
});
