// The events area's ingest: publishing one event onto the platform bus. It reaches no other area, so publishEvent
// loads only the events modules it runs.
import { perPlatform } from '#functions/app/platform.js';
import { createEventIngest } from '#functions/events/ingest.js';

export const eventIngest = perPlatform(({ eventBus, clock }) => createEventIngest({ publisher: eventBus, clock }));
