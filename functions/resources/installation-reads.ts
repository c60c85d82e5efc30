// Installation reads the call path may reuse for a moment, per process. Every write through an installation store of
// this process drops or advances its entry, so local mode (one process) never reuses a stale one; across Lambda
// functions a reused read is at most `maxAgeMs` old, as the authorizer trusts a resolved API key for 30 s.
import type { InstallationItem, RecentCall } from './records.js';

const maxEntries = 10_000;
const reads = new Map<string, { item: InstallationItem; at: number }>();
const keyOf = (userId: string, resourceId: string) => `${userId}#${resourceId}`;

export const installationReads = {
  recall(userId: string, resourceId: string, maxAgeMs: number): InstallationItem | undefined {
    const entry = reads.get(keyOf(userId, resourceId));
    return entry && Date.now() - entry.at <= maxAgeMs ? entry.item : undefined;
  },

  remember(item: InstallationItem): void {
    const key = keyOf(item.userId, item.resourceId);
    reads.delete(key);
    // Map keeps insertion order, so the first key is the oldest entry.
    if (reads.size >= maxEntries) reads.delete(reads.keys().next().value!);
    reads.set(key, { item, at: Date.now() });
  },

  forget(userId: string, resourceId: string): void {
    reads.delete(keyOf(userId, resourceId));
  },

  /** The newest state of `item` this process knows: its remembered snapshot when it is the same installation. */
  latest(item: InstallationItem): InstallationItem {
    const entry = reads.get(keyOf(item.userId, item.resourceId));
    return entry?.item.installationId === item.installationId ? entry.item : item;
  },

  /** Advances a remembered snapshot without making it look fresher than the read it came from. */
  advance(item: InstallationItem): void {
    const entry = reads.get(keyOf(item.userId, item.resourceId));
    if (entry?.item.installationId === item.installationId) entry.item = item;
  },
};

/** The installation as recording `call` leaves it: what the next call bases its bookkeeping on. */
export function afterCall(item: InstallationItem, call: RecentCall): InstallationItem {
  const today = call.timestamp.slice(0, 10);
  return {
    ...item,
    totalCalls: item.totalCalls + 1,
    failedCalls: (item.failedCalls ?? 0) + (call.success ? 0 : 1),
    totalCost: item.totalCost + call.cost,
    lastUsedAt: call.timestamp,
    recentCalls: [...(item.recentCalls ?? []), call],
    dailyCalls: { [today]: (item.dailyCalls?.[today] ?? 0) + 1 },
  };
}
