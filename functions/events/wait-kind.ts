// The `event` wait kind the events area declares for durable runs: the run waits for one of its user's events that
// matches (the trigger pipeline's wait target resumes it), and a run that ends first leaves no wait behind.
import type { WaitKind } from '#functions/durable/api.js';
import type { EventWaits } from './event-waits.js';

export function eventWaitKind(eventWaits: Pick<EventWaits, 'open' | 'close'>): WaitKind {
  return {
    type: 'event',
    onTimeout: 'timeout',
    async open(owner, name, args) {
      const { timeoutSeconds, eventType } = await eventWaits.open(owner, name, args);
      return { timeoutSeconds, fields: { eventType } };
    },
    async close({ executionId, userId, name, fields }) {
      if (userId && typeof fields?.eventType === 'string') await eventWaits.close({ executionId, userId }, name, fields.eventType);
    },
  };
}
