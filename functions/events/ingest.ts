// POST /api/sdk/v1/events: an event for the caller's own user, normalised and put on the bus; the
// dispatcher enriches and delivers it asynchronously.
import type { Clock } from '#platform/clock.js';
import { PayloadTooLargeError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';
import { type EventInput, normalizeEvent } from '#platform/event-object.js';

/** EventBridge takes 256 KB per entry; the rest is room for the envelope. */
const maxEventBytes = 200 * 1024;

export function createEventIngest(deps: { publisher: EventPublisher; clock: Clock }) {
  return {
    async publish(caller: Caller, input: EventInput): Promise<{ eventId: string }> {
      const event = normalizeEvent(input, { id: newId('evt'), userId: caller.userId, now: deps.clock.nowIso() });
      const size = Buffer.byteLength(JSON.stringify(event));
      if (size > maxEventBytes) throw new PayloadTooLargeError(size, maxEventBytes);
      return deps.publisher.publish(event);
    },
  };
}
