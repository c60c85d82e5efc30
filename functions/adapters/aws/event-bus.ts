import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { newId } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';
import { traced } from '#platform/tracer.js';

let client: EventBridgeClient | undefined;

/** PutEvents onto the `platform-events` bus (EVENT_BUS_NAME's, given by the root); the dispatcher rule routes by `detail-type`. */
export const eventBridgePublisher = (busName: string | undefined): EventPublisher => ({
  async publish(event) {
    const eventId = typeof event.id === 'string' ? event.id : newId('evt');
    client ??= traced(new EventBridgeClient({}));
    const result = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: busName,
            Source: `platform.${event.source}`,
            DetailType: event.type,
            Detail: JSON.stringify({ ...event, id: eventId }),
          },
        ],
      }),
    );
    if (result.FailedEntryCount) throw new Error(`EventBridge refused event ${eventId}: ${result.Entries?.[0]?.ErrorMessage ?? 'unknown reason'}`);
    return { eventId };
  },
});
