// The interface's event object: what POST /events accepts, and the one normalisation every event goes through
// (from the API, from webhook resources, from any publisher on the bus) before it reaches scripts.
import * as z from 'zod';
import { IsoDate } from '#platform/schemas.js';
import { EventType } from './event-types.js';

export const contentTypes = ['message', 'email', 'calendar_event', 'call', 'document', 'transcript'] as const;
export const actorTypes = ['user', 'bot', 'system', 'calendar', 'email'] as const;
export const channelTypes = ['direct_message', 'group_chat', 'channel', 'email_thread', 'call'] as const;

const shortText = z.string().max(500);
const serverSet = z.never({ error: 'is set by the server' }).optional();

/** Integration objects keep fields the interface does not list; the ones it names are type-checked. */
const integrations = {
  chatapp: z.looseObject({ chatId: z.string().max(500).optional(), isGroupChat: z.boolean().optional() }).optional(),
  mailapp: z
    .looseObject({
      subject: z.string().max(2000).optional(),
      from: z.looseObject({ email: z.string().max(500).optional() }).optional(),
      hasAttachments: z.boolean().optional(),
    })
    .optional(),
  calendarapp: z.looseObject({}).optional(),
  // The interface lists no docsapp object, but its docsapp.document_updated events need somewhere to put document fields.
  docsapp: z.looseObject({}).optional(),
  call: z.looseObject({ durationSeconds: z.number().min(0).optional() }).optional(),
  crypto: z.looseObject({ priceUsd: z.number().optional() }).optional(),
};

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The user's own object, kept as parsed: every key survives, `__proto__` and `constructor` included (a zod record
 * drops `__proto__`). JSON.parse made it, so such a key is an own property, never the prototype.
 */
const userObject = z
  .custom<Record<string, unknown>>(isRecord, { error: 'expected an object' })
  .meta({ type: 'object', additionalProperties: {} } as Record<string, unknown>);

/** Body of POST /api/sdk/v1/events: the event object without what the server fills. */
export const EventInput = z.strictObject({
  id: serverSet,
  userId: serverSet,
  // null is what the server sets anyway (null until processed), so an event object copied whole is taken.
  enrichment: z.null({ error: 'is set by the server' }).optional(),
  type: EventType,
  source: z.string().min(1).max(100).optional(),
  timestamp: IsoDate.optional(),
  content: z.strictObject({ text: z.string().max(100_000).optional(), contentType: z.enum(contentTypes).optional(), timestamp: IsoDate.optional() }).optional(),
  actor: z.strictObject({ id: shortText.optional(), name: shortText.optional(), actorType: z.enum(actorTypes).optional() }).optional(),
  context: z
    .strictObject({ channelId: shortText.optional(), channelName: shortText.optional(), channelType: z.enum(channelTypes).optional() })
    .nullable()
    .optional(),
  graphId: z.string().max(200).nullable().optional(),
  entity: userObject.optional(),
  data: userObject.optional(),
  ...integrations,
  messageText: z.string().max(100_000).optional(),
  senderName: shortText.optional(),
});
export type EventInput = z.infer<typeof EventInput>;

export interface EventActor {
  id: string;
  name: string;
  actorType: string;
}

export interface EventObject {
  id: string;
  type: string;
  source: string;
  timestamp: string;
  userId: string;
  content: { text: string; contentType: string; timestamp: string };
  actor: EventActor;
  context: Record<string, unknown> | null;
  graphId: string | null;
  entity: Record<string, unknown>;
  enrichment: Record<string, unknown> | null;
  messageText: string;
  senderName: string;
  [integration: string]: unknown;
}

const defaultContentType: Record<string, (typeof contentTypes)[number]> = {
  chatapp: 'message',
  mailapp: 'email',
  calendarapp: 'calendar_event',
  docsapp: 'document',
  transcript: 'transcript',
  voice: 'call',
  call: 'call',
};

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const systemActor: EventActor = { id: '', name: 'System', actorType: 'system' };

function normalizeActor(raw: Record<string, unknown>): EventActor {
  const actor = isRecord(raw.actor) ? raw.actor : undefined;
  const name = text(actor?.name) ?? text(raw.senderName);
  if (!actor && name === undefined) return systemActor;
  const actorType = text(actor?.actorType) ?? 'user';
  if (actorType === 'system') return { ...systemActor, name: name || systemActor.name };
  return { id: text(actor?.id) ?? '', name: name ?? '', actorType };
}

/**
 * Fills the interface's defaults: `content.text` "", `actor.name` "System" and `actor.id` "" for system events,
 * `context` null, `graphId` null, `entity` {}, `enrichment` null, and the legacy aliases `messageText` and
 * `senderName`. Idempotent; tolerant of any shape a publisher on the bus sends.
 */
export function normalizeEvent(raw: Record<string, unknown>, fill: { id: string; userId: string; now: string }): EventObject {
  const type = String(raw.type);
  const timestamp = text(raw.timestamp) ?? fill.now;
  const content = isRecord(raw.content) ? raw.content : {};
  const body = text(content.text) ?? text(raw.messageText) ?? '';
  const actor = normalizeActor(raw);
  const { messageText: _m, senderName: _s, ...rest } = raw;
  return {
    ...rest,
    id: fill.id,
    type,
    source: text(raw.source) ?? 'api',
    timestamp,
    userId: fill.userId,
    content: {
      ...content,
      text: body,
      contentType: text(content.contentType) ?? defaultContentType[type.split('.')[0]!] ?? 'message',
      timestamp: text(content.timestamp) ?? timestamp,
    },
    actor,
    context: actor.actorType === 'system' || !isRecord(raw.context) ? null : raw.context,
    graphId: text(raw.graphId) ?? null,
    entity: isRecord(raw.entity) ? raw.entity : {},
    enrichment: isRecord(raw.enrichment) ? raw.enrichment : null,
    messageText: body,
    senderName: actor.name,
  };
}
