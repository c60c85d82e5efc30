import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessBus } from '../../functions/adapters/local/event-bus.js';
import type { PlatformEventInput } from '../../functions/platform/ports.js';
import { sampleFiles, sampleInput } from '../support/event-samples.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let user: TestUser;
const published: PlatformEventInput[] = [];
let unsubscribe: () => void;

beforeAll(async () => {
  api = await startTestPlatform();
  user = await api.givenUser();
  unsubscribe = inProcessBus.subscribe(async (event) => void published.push(event));
});
afterAll(async () => {
  unsubscribe();
  await api.stop();
});

/** Waits until the bus has carried an event with this id (delivery is asynchronous). */
async function onBus(eventId: string): Promise<PlatformEventInput> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = published.find((event) => event.id === eventId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`event ${eventId} never reached the bus`);
}

describe('events: POST /api/sdk/v1/events', () => {
  it.each(sampleFiles.map((file) => file.replace(/\.json$/, '')))('accepts the %s sample and puts the normalised event on the bus', async (type) => {
    // Act
    const response = await api.as(user.apiKey).post('/api/sdk/v1/events', sampleInput(type));
    // Assess
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ success: true, data: { eventId: expect.stringMatching(/^evt_/) } });
    const event = await onBus(response.body.data.eventId);
    expect(event).toMatchObject({ id: response.body.data.eventId, type, userId: user.userId, enrichment: null, entity: expect.any(Object) });
    expect(event.messageText).toBe((event.content as { text: string }).text);
  });

  it('fills what the server owns for a minimal event', async () => {
    // Act
    const response = await api.as(user.apiKey).post('/api/sdk/v1/events', { type: 'custom.ping' });
    // Assess
    const event = await onBus(response.body.data.eventId);
    expect(event).toMatchObject({
      type: 'custom.ping',
      source: 'api',
      userId: user.userId,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      content: { text: '', contentType: 'message' },
      actor: { id: '', name: 'System', actorType: 'system' },
      context: null,
      graphId: null,
      entity: {},
      enrichment: null,
      messageText: '',
      senderName: 'System',
    });
  });

  it('takes an event object copied whole, with the null enrichment of an unprocessed event', async () => {
    // Act
    const response = await api
      .as(user.apiKey)
      .post('/api/sdk/v1/events', { type: 'custom.copied', context: null, graphId: null, entity: {}, enrichment: null });
    // Assess
    expect(response.status).toBe(202);
    const event = await onBus(response.body.data.eventId);
    expect(event).toMatchObject({ type: 'custom.copied', userId: user.userId, context: null, graphId: null, entity: {}, enrichment: null });
  });

  it('needs an API key', async () => {
    // Act
    const response = await api.request('POST', '/api/sdk/v1/events', { body: { type: 'custom.ping' } });
    // Assess
    expect(response.status).toBe(401);
  });

  it.each([
    ['a missing type', { source: 'x' }, 'type', null],
    ['an unknown type', { type: 'chatapp.reaction' }, 'type', 'chatapp.reaction'],
    ['a type that is not a string', { type: 5 }, 'type', 5],
    ["the platform's own namespace", { type: 'platform.script_schedule' }, 'type', 'platform.script_schedule'],
    ["the platform's owner event of a failed run", { type: 'platform.execution.failed' }, 'type', 'platform.execution.failed'],
    ["the platform's owner event of an approval asked for", { type: 'platform.approval.requested' }, 'type', 'platform.approval.requested'],
    ['an id set by the client', { type: 'custom.x', id: 'evt_mine' }, 'id', 'evt_mine'],
    ['a userId set by the client', { type: 'custom.x', userId: 'usr_other' }, 'userId', 'usr_other'],
    ['enrichment set by the client', { type: 'chatapp.message', enrichment: { tickers: [] } }, 'enrichment', { tickers: [] }],
    ['a malformed timestamp', { type: 'custom.x', timestamp: 'yesterday' }, 'timestamp', 'yesterday'],
    ['an unknown content type', { type: 'custom.x', content: { contentType: 'video' } }, 'content.contentType', 'video'],
    ['an unknown actor type', { type: 'custom.x', actor: { actorType: 'robot' } }, 'actor.actorType', 'robot'],
    ['an unknown channel type', { type: 'custom.x', context: { channelType: 'forum' } }, 'context.channelType', 'forum'],
    ['a mistyped integration field', { type: 'chatapp.message', chatapp: { isGroupChat: 'yes' } }, 'chatapp.isGroupChat', 'yes'],
    ['an unknown top-level field', { type: 'custom.x', payload: {} }, 'payload', {}],
  ])('refuses %s with VALIDATION_ERROR and publishes nothing', async (_name, body, field, value) => {
    // Prepare
    const before = published.length;
    // Act
    const response = await api.as(user.apiKey).post('/api/sdk/v1/events', body);
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(published.length).toBe(before);
  });

  it('refuses an event too large for the bus with 413 and publishes nothing', async () => {
    // Prepare
    const before = published.length;
    // Act
    const response = await api.as(user.apiKey).post('/api/sdk/v1/events', { type: 'custom.big', data: { blob: 'x'.repeat(210 * 1024) } });
    // Assess
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(published.length).toBe(before);
  });
});
