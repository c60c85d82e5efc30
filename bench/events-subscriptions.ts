// The subscription load of the events bench: N users with M subscriptions each to chatapp.message, written
// through the real store (subscription item + dispatch index), conditions drawn from templates that use
// every script operator, and chat messages that match some of them.
import { systemClock } from '../functions/platform/clock.js';
import { enrichEvent } from '../functions/events/enrichment/enrich.js';
import { type EventObject, normalizeEvent } from '../functions/platform/event-object.js';
import { createSubscriptionTarget } from '../functions/events/subscription-target.js';
import type { Candidate } from '../functions/events/target-kind.js';
import { createTriggerPipeline } from '../functions/events/trigger-pipeline.js';
import { createSubscriptionIndex, createSubscriptionStore } from '../functions/events/subscription-store.js';

const eventType = 'chatapp.message';

/** Together these use all fourteen operators of the interface, and `and` / `or` groups two levels deep. */
const templates: unknown[][] = [
  [{ field: 'content.text', operator: 'contains', value: 'AAPL' }],
  [
    { field: 'actor.name', operator: 'equals', value: 'Dana Whitfield' },
    { field: 'chatapp.isGroupChat', operator: 'equals', value: true },
  ],
  [{ field: 'enrichment.sentiment.score', operator: 'greater_than', value: 0.2 }],
  [
    { field: 'enrichment.tickers.length', operator: 'greater_than_or_equal', value: 1 },
    { field: 'enrichment.tickers.0.symbol', operator: 'in', value: ['AAPL', 'BTC', 'TSLA'] },
  ],
  [
    {
      operator: 'or',
      conditions: [
        { field: 'content.text', operator: 'starts_with', value: 'Great' },
        { field: 'content.text', operator: 'ends_with', value: '!' },
      ],
    },
  ],
  [
    { field: 'mailapp', operator: 'not_exists' },
    { field: 'context.channelType', operator: 'not_equals', value: 'direct_message' },
  ],
  [
    { field: 'content.text', operator: 'not_contains', value: 'spam' },
    { field: 'enrichment.sentiment.label', operator: 'not_in', value: ['negative'] },
  ],
  [
    {
      operator: 'and',
      conditions: [
        { field: 'enrichment.sentiment.score', operator: 'less_than', value: 0 },
        {
          operator: 'or',
          conditions: [
            { field: 'enrichment.topics', operator: 'contains', value: 'finance' },
            { field: 'enrichment.topics', operator: 'contains', value: 'crypto' },
          ],
        },
      ],
    },
  ],
  [
    { field: 'chatapp.chatId', operator: 'exists' },
    { field: 'crypto.priceUsd', operator: 'less_than_or_equal', value: 100 },
  ],
  [],
];

const messages = [
  { text: 'Great earnings from Apple today, $AAPL is up 4% and I am loving it!', actor: 'Dana Whitfield', group: true, channel: 'group_chat' },
  { text: 'BTC dumped again, this market is terrible and I lost money', actor: 'Sam Ortiz', group: false, channel: 'direct_message' },
  { text: 'Can we move the sync to 3pm? The client call ran late.', actor: 'Priya Raman', group: true, channel: 'channel' },
  { text: 'Tesla and Nvidia both rallied, what a week for tech stocks', actor: 'Alex Chen', group: true, channel: 'group_chat' },
];

function chatMessage(userId: string, variant: number) {
  const message = messages[variant % messages.length]!;
  return {
    type: eventType,
    source: 'chatapp',
    content: { text: message.text },
    actor: { id: `u-${variant}`, name: message.actor, actorType: 'user' },
    context: { channelId: 'c-1', channelName: 'general', channelType: message.channel },
    chatapp: { chatId: `chat-${variant % 7}`, isGroupChat: message.group },
    userId,
  };
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<unknown>) {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(work));
}

export async function subscriptionLoad(shape: { users: number; perUser: number }) {
  const store = createSubscriptionStore();
  // Uncached: the lookup measured is the one every event pays on AWS.
  const index = createSubscriptionIndex({ cached: false });
  const now = new Date().toISOString();
  const userIds = Array.from({ length: shape.users }, (_, user) => `usr_bench${String(user).padStart(5, '0')}`);
  const items = userIds.flatMap((userId, user) =>
    Array.from({ length: shape.perUser }, (_, slot) => ({
      subscriptionId: `sub_bench${user}x${slot}`,
      scriptId: `scr_bench${user}`,
      userId,
      eventType,
      conditions: templates[(user + slot) % templates.length]!,
      enabled: true,
      createdAt: now,
      updatedAt: now,
    })),
  );
  const started = Date.now();
  await inBatches(items, 32, (item) => store.create(item));
  console.log(`  wrote ${items.length} subscriptions in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const unused = () => Promise.reject(new Error('not used by the match bench'));
  const subscriptions = createSubscriptionTarget({
    index,
    history: { recordDelivery: unused },
    scripts: { describe: unused, run: unused, wakeRunQueue: unused },
    triggers: { getWebhook: unused, getSchedule: unused, retireSchedule: unused },
    clock: systemClock,
  });
  const candidates = new Map<string, Candidate[]>();
  await inBatches(userIds, 32, async (userId) => candidates.set(userId, await subscriptions.candidates(userId, eventType)));
  const found = [...candidates.values()].reduce((sum, list) => sum + list.length, 0);
  if (found !== items.length) throw new Error(`the index holds ${found} subscriptions, not ${items.length}`);

  const pipeline = createTriggerPipeline({
    kinds: [subscriptions],
    ledger: { claim: unused, complete: unused, release: unused },
    history: { recordEvent: unused },
    clock: systemClock,
    metrics: { record: () => undefined },
  });
  const userOf = (sample: number) => userIds[(sample * 7919) % userIds.length]!;

  return {
    users: shape.users,
    perUser: shape.perUser,
    subscriptions: items.length,
    lookup: (sample: number) => index.active(userOf(sample), eventType),
    enrichedEvent(sample: number): EventObject {
      const nowIso = new Date().toISOString();
      return enrichEvent(normalizeEvent(chatMessage(userOf(sample), sample), { id: `evt_bench${sample}`, userId: userOf(sample), now: nowIso }), nowIso);
    },
    match: (sample: number, event: EventObject) => pipeline.match(subscriptions, event, candidates.get(userOf(sample))!).length,
  };
}
