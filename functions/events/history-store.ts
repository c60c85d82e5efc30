// The caller's event history in DynamoDB: one item per event and one per delivery, side by side in the user's
// partition (the delivery's key extends its event's), so one descending query reads events with their deliveries.
// The user's event is kept as JSON text (`eventJson`), never as a map: no key of theirs (`constructor`, which the
// marshaller refuses) can break the write. Items written before hold the event as a map (`event`) and read as they were.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/dynamo.js';
import { createBatchedPuts } from './batched-puts.js';
import type { EventObject } from '#platform/event-object.js';
import type { EventHistory, HistoryDelivery } from './ports.js';

const retentionSeconds = 30 * 24 * 3600;
/** From the wall clock, not the injected one: DynamoDB's TTL sweeper compares with its own. */
const retainedUntil = () => Math.floor(Date.now() / 1000) + retentionSeconds;

/** Event times as UTC instants, so keys sort in time order whatever offset the publisher wrote. */
const eventKey = (event: Pick<EventObject, 'timestamp' | 'id'>) => `${new Date(event.timestamp).toISOString()}#${event.id}`;

export interface HistoryEvent {
  eventId: string;
  type: string;
  source: string;
  timestamp: string;
  event: Record<string, unknown>;
  deliveries: HistoryDelivery[];
}

export interface HistoryQuery {
  type?: string;
  source?: string;
  startDate?: string;
  endDate?: string;
  limit: number;
  offset: number;
}

interface StoredItem {
  kind: 'event' | 'delivery';
  eventId: string;
  eventJson?: string;
  event?: Record<string, unknown>;
  delivery?: HistoryDelivery;
}

/** JSON.parse defines a `__proto__` key as an own property: it never reaches a prototype. */
const storedEvent = (item: StoredItem): Record<string, unknown> | undefined => (item.eventJson === undefined ? item.event : JSON.parse(item.eventJson));

export function createEventHistoryStore(): EventHistory & { list(userId: string, query: HistoryQuery): Promise<{ events: HistoryEvent[]; hasMore: boolean }> } {
  const db = dynamo();
  const table = () => tableName('eventHistory');
  // Many events are recorded at once under load: their items go out together, up to 25 to a request.
  const put = createBatchedPuts(table, ['userId', 'historyKey']);
  const common = (event: EventObject) => ({ userId: event.userId, eventId: event.id, type: event.type, source: event.source, expiresAt: retainedUntil() });
  return {
    recordEvent: (event) => put({ ...common(event), historyKey: eventKey(event), kind: 'event', eventJson: JSON.stringify(event) }),
    recordDelivery: (event, delivery) =>
      put({
        ...common(event),
        historyKey: `${eventKey(event)}#${delivery.subscriptionId ?? `wait#${delivery.executionId}#${delivery.wait}`}`,
        kind: 'delivery',
        delivery,
      }),
    async list(userId, query) {
      const range =
        query.startDate || query.endDate
          ? { condition: ' AND historyKey BETWEEN :start AND :end', values: { ':start': query.startDate ?? '0', ':end': `${query.endDate ?? '9999'}\uffff` } }
          : { condition: '', values: {} };
      const filters = [query.type && '#type = :type', query.source && '#source = :source'].filter(Boolean);
      const wanted = query.offset + query.limit + 1;
      const events: HistoryEvent[] = [];
      // Newest first, a delivery's item comes before its event's: deliveries wait here until their event is read.
      let pending: HistoryDelivery[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: table(),
            KeyConditionExpression: `userId = :user${range.condition}`,
            ...(filters.length && { FilterExpression: filters.join(' AND ') }),
            ...(filters.length && { ExpressionAttributeNames: { ...(query.type && { '#type': 'type' }), ...(query.source && { '#source': 'source' }) } }),
            ExpressionAttributeValues: {
              ':user': userId,
              ...range.values,
              ...(query.type && { ':type': query.type }),
              ...(query.source && { ':source': query.source }),
            },
            ScanIndexForward: false,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of (page.Items ?? []) as StoredItem[]) {
          if (item.kind === 'delivery' && item.delivery) pending.push(item.delivery);
          const stored = item.kind === 'event' ? storedEvent(item) : undefined;
          if (!stored) continue;
          const event = stored as unknown as EventObject;
          events.push({
            eventId: item.eventId,
            type: event.type,
            source: event.source,
            timestamp: event.timestamp,
            event: stored,
            deliveries: pending.sort((a, b) => a.at.localeCompare(b.at)),
          });
          pending = [];
          if (events.length >= wanted) break;
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey && events.length < wanted);
      return { events: events.slice(query.offset, query.offset + query.limit), hasMore: events.length > query.offset + query.limit };
    },
  };
}
