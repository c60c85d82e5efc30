// The AWS adapters of the flows area: one-time EventBridge Scheduler schedules of the scheduler adapter (control plane on moto) and the
// Bedrock Converse model (against a local server that speaks Converse's REST API, since moto does not; over
// cleartext HTTP/2, which is what the Bedrock runtime client speaks).
import { type Http2Server, createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { CreateScheduleGroupCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBedrockModel } from '../../functions/adapters/aws/bedrock-llm.js';
import { createEventBridgeScheduler } from '../../functions/adapters/aws/scheduler.js';
import { schedulerResources } from '../../functions/app/aws-ports.js';
import { parsePlatformSettings } from '../../functions/app/platform.js';
import { type Moto, startMoto } from '../support/moto.js';

let moto: Moto;
const account = '123456789012';

beforeAll(async () => {
  moto = await startMoto();
  Object.assign(process.env, {
    EVENT_BUS_NAME: 'platform-events',
    SCHEDULE_GROUP_NAME: 'platform',
    SCHEDULER_ROLE_ARN: `arn:aws:iam::${account}:role/platform-scheduler`,
  });
  await new SchedulerClient(moto.clientConfig).send(new CreateScheduleGroupCommand({ Name: 'platform' }));
});
afterAll(() => moto.stop());

describe('aws adapter: one-time schedules', () => {
  it('creates an at() schedule in UTC that puts the retry on the platform bus and deletes itself', async () => {
    // Prepare
    const scheduler = createEventBridgeScheduler(moto.clientConfig, schedulerResources(parsePlatformSettings(process.env).kernel));
    const name = `flow-retry-exe_${Math.random().toString(36).slice(2)}-1`;
    // Act
    await scheduler.putOnce({
      name,
      at: '2026-03-02T09:01:00.000Z',
      event: { type: 'platform.flow_retry', userId: 'usr_1', detail: { flowId: 'flw_1', originId: 'exe_1', attempt: 1 } },
    });
    const stored = await new SchedulerClient(moto.clientConfig).send(new GetScheduleCommand({ Name: name, GroupName: 'platform' }));
    // Assess
    expect(stored).toMatchObject({
      ScheduleExpression: 'at(2026-03-02T09:01:00)',
      ScheduleExpressionTimezone: 'UTC',
      State: 'ENABLED',
      Target: {
        Arn: `arn:aws:events:us-east-1:${account}:event-bus/platform-events`,
        RoleArn: `arn:aws:iam::${account}:role/platform-scheduler`,
        EventBridgeParameters: { Source: 'platform.scheduler', DetailType: 'platform.flow_retry' },
      },
    });
    expect(JSON.parse(stored.Target!.Input!)).toEqual({
      flowId: 'flw_1',
      originId: 'exe_1',
      attempt: 1,
      type: 'platform.flow_retry',
      userId: 'usr_1',
      source: 'scheduler',
      scheduledTime: '2026-03-02T09:01:00.000Z',
    });
  });

  it('cancels a pending one-shot, and cancelling it again is not an error', async () => {
    // Prepare
    const scheduler = createEventBridgeScheduler(moto.clientConfig, schedulerResources(parsePlatformSettings(process.env).kernel));
    const name = `flow-retry-exe_${Math.random().toString(36).slice(2)}-2`;
    await scheduler.putOnce({ name, at: '2026-03-02T09:05:00.000Z', event: { type: 'platform.flow_retry', userId: 'usr_1', detail: {} } });
    // Act
    await scheduler.remove(name);
    const again = scheduler.remove(name);
    // Assess
    await expect(again).resolves.toBeUndefined();
    await expect(new SchedulerClient(moto.clientConfig).send(new GetScheduleCommand({ Name: name, GroupName: 'platform' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});

describe('aws adapter: Bedrock Converse', () => {
  let server: Http2Server;
  const received: Array<{ url: string; body: any }> = [];
  let endpoint: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ url: request.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            output: {
              message: {
                role: 'assistant',
                content: [{ text: 'Checking.' }, { toolUse: { toolUseId: 'tu_2', name: 'weather__getForecast', input: { city: 'Oslo' } } }],
              },
            },
            stopReason: 'tool_use',
            usage: { inputTokens: 50, outputTokens: 12, totalTokens: 62 },
            metrics: { latencyMs: 5 },
          }),
        );
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

  it('sends the conversation with tool results folded into one user turn, and reads back the tool calls', async () => {
    // Prepare
    const model = createBedrockModel({ modelId: 'anthropic.claude-test', pricing: { inputPerMTok: 3, outputPerMTok: 15 } }, { ...moto.clientConfig, endpoint });
    const tools = [
      { name: 'weather__getForecast', description: 'weather: forecast', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    ];
    // Act
    const turn = await model.complete({
      messages: [
        { role: 'system', content: 'You run an automation.' },
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'tu_1', name: 'weather__getForecast', argumentsJson: '{"city":"Paris"}' },
            { id: 'tu_x', name: 'weather__getForecast', argumentsJson: '{"city":"Rome"}' },
          ],
        },
        { role: 'tool', toolCallId: 'tu_1', name: 'weather__getForecast', content: '{"forecast":"sunny"}' },
        { role: 'tool', toolCallId: 'tu_x', name: 'weather__getForecast', content: '{"forecast":"rain"}' },
      ],
      tools,
      timeoutMs: 5000,
    });
    // Assess
    expect(turn).toEqual({
      content: 'Checking.',
      toolCalls: [{ id: 'tu_2', name: 'weather__getForecast', argumentsJson: '{"city":"Oslo"}' }],
      usage: { inputTokens: 50, outputTokens: 12 },
    });
    const [request] = received;
    expect(decodeURIComponent(request!.url)).toBe('/model/anthropic.claude-test/converse');
    expect(request!.body).toEqual({
      system: [{ text: 'You run an automation.' }],
      messages: [
        { role: 'user', content: [{ text: 'Weather in Paris and Oslo?' }] },
        {
          role: 'assistant',
          content: [
            { toolUse: { toolUseId: 'tu_1', name: 'weather__getForecast', input: { city: 'Paris' } } },
            { toolUse: { toolUseId: 'tu_x', name: 'weather__getForecast', input: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'tu_1', content: [{ text: '{"forecast":"sunny"}' }] } },
            { toolResult: { toolUseId: 'tu_x', content: [{ text: '{"forecast":"rain"}' }] } },
          ],
        },
      ],
      toolConfig: { tools: [{ toolSpec: { name: 'weather__getForecast', description: 'weather: forecast', inputSchema: { json: tools[0]!.parameters } } }] },
    });
  });
});
