// GET /api/sdk/v1/events: the caller's own events with their deliveries; another user's events are never read.
import type { Caller } from '#platform/caller.js';
import type { HistoryEvent, HistoryQuery } from './history-store.js';

export function createEventHistoryService(deps: {
  store: { list(userId: string, query: HistoryQuery): Promise<{ events: HistoryEvent[]; hasMore: boolean }> };
}) {
  return {
    async list(caller: Caller, query: HistoryQuery) {
      const { events, hasMore } = await deps.store.list(caller.userId, query);
      return { events, limit: query.limit, offset: query.offset, hasMore };
    },
  };
}
