// The events area's history: the user's delivered events, as the trigger pipeline recorded them.
import { perPlatform } from '#functions/app/platform.js';
import { createEventHistoryService } from '#functions/events/history-service.js';
import { createEventHistoryStore } from '#functions/events/history-store.js';

export const eventHistory = perPlatform(() => createEventHistoryService({ store: createEventHistoryStore() }));
