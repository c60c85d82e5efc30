import { newId } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const eventBridge = onFirstUse(async () => {
  const sdk = await import('@aws-sdk/client-eventbridge');
  return { sdk, client: traced(new sdk.EventBridgeClient({})) };
});

/** PutEvents onto the `platform-events` bus (EVENT_BUS_NAME's, given by the root); the dispatcher rule routes by `detail-type`. */
export const eventBridgePublisher = (busName: string | undefined): EventPublisher => ({
  async publish(event) {
    const eventId = typeof event.id === 'string' ? event.id : newId('evt');
    const { sdk, client } = await eventBridge();
    const result = await client.send(
      new sdk.PutEventsCommand({
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
