import { newId } from '#platform/ids.js';
import type { EventPublisher, PlatformEventInput } from '#platform/ports.js';

type Listener = (event: PlatformEventInput & { id: string }) => Promise<void>;

const listeners: Listener[] = [];

/** Local stand-in for EventBridge: delivery is asynchronous, as on AWS, and a failing listener does not stop the others. */
export const inProcessBus: EventPublisher & { subscribe(listener: Listener): () => void } = {
  async publish(event) {
    const delivered = { ...event, id: typeof event.id === 'string' ? event.id : newId('evt') };
    setImmediate(() => {
      for (const listener of listeners) listener(delivered).catch((error: unknown) => console.error('event listener failed', error));
    });
    return { eventId: delivered.id };
  },
  subscribe(listener) {
    listeners.push(listener);
    return () => listeners.splice(listeners.indexOf(listener), 1);
  },
};
