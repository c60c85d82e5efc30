// Counts the DynamoDB commands each local HTTP request and each bus delivery makes, so a request that grows its store
// calls is named by a test (test/integration/store-call-budget.test.ts) instead of by a bench run weeks later. Off
// until someone watches: with no watcher, a request runs in no tally and the client's counting step only looks once.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The commands of one request or one delivery, by `<Command> <table>` (e.g. `PutCommand platform-eventHistory`). */
export interface StoreCallTally {
  /** `POST /api/sdk/v1/events`, or `bus <consumer> <event type>` for a delivery. */
  label: string;
  /** The request's id, or the delivered event's id. */
  id: string;
  calls: Map<string, number>;
  total: number;
}

type Watcher = (tally: StoreCallTally) => void;

const watchers = new Set<Watcher>();
const current = new AsyncLocalStorage<StoreCallTally>();
const countedClients = new WeakSet<object>();

function tableOf(input: Record<string, unknown> | undefined): string {
  if (typeof input?.TableName === 'string') return input.TableName;
  const items = (input?.RequestItems ?? undefined) as Record<string, unknown> | undefined;
  if (items) return Object.keys(items).join('+');
  const transactItems = input?.TransactItems as Array<Record<string, { TableName?: string }>> | undefined;
  if (transactItems) return [...new Set(transactItems.flatMap((item) => Object.values(item).map((operation) => operation.TableName ?? '?')))].join('+');
  return '';
}

/** Adds the counting step to the platform's client (once per client). */
export function countStoreCalls(client: DynamoDBDocumentClient): void {
  if (countedClients.has(client)) return;
  countedClients.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const tally = current.getStore();
      if (tally) {
        const key = `${context.commandName} ${tableOf(args.input as Record<string, unknown>)}`;
        tally.calls.set(key, (tally.calls.get(key) ?? 0) + 1);
        tally.total++;
      }
      return next(args);
    },
    { step: 'initialize', name: 'storeCallCounter' },
  );
}

/**
 * Runs `work` in a tally of its own (the store calls of anything it starts, detached or not, count to it, unless that
 * opens a tally of its own, as a bus delivery does) and hands the tally to the watchers once `work` settles.
 */
export async function tallyStoreCalls<T>(label: string, id: string, work: () => Promise<T>): Promise<T> {
  if (!watchers.size) return work();
  const tally: StoreCallTally = { label, id, calls: new Map(), total: 0 };
  try {
    return await current.run(tally, work);
  } finally {
    for (const watcher of watchers) watcher(tally);
  }
}

/** Calls `watcher` with each finished tally until the returned function is called. */
export function watchStoreCalls(watcher: Watcher): () => void {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}
