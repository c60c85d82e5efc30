// Puts of one table coalesced: the items put within one turn of the event loop go out together, up to 25 to a
// BatchWriteItem request (a lone item as a plain PutItem), and each put answers once its own item is written. Under a
// burst of events this is one store call per 25 records instead of one per record; a lone put costs what it did.
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#platform/dynamo.js';

/** DynamoDB's limit of items per BatchWriteItem. */
const maxBatchItems = 25;
/** Items DynamoDB sent back unprocessed (throttling) are sent again this many times, with backoff. */
const unprocessedRetries = 5;

type Item = Record<string, unknown>;

interface Pending {
  item: Item;
  done: Array<{ resolve(): void; reject(error: unknown): void }>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function createBatchedPuts(table: () => string, keyAttributes: readonly string[]): (item: Item) => Promise<void> {
  // By key: a batch may not hold one key twice, and a later put of the same key replaces the earlier one.
  let pending = new Map<string, Pending>();
  let scheduled = false;

  async function write(batch: Pending[]): Promise<void> {
    const TableName = table();
    const db = dynamo();
    if (batch.length === 1) {
      await db.send(new PutCommand({ TableName, Item: batch[0]!.item }));
      return;
    }
    let requests = batch.map(({ item }) => ({ PutRequest: { Item: item } }));
    for (let attempt = 0; requests.length; attempt++) {
      if (attempt > unprocessedRetries) throw new Error(`${requests.length} items of ${TableName} stayed unprocessed`);
      if (attempt) await pause(50 * 2 ** attempt);
      const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [TableName]: requests } }));
      requests = (UnprocessedItems?.[TableName] ?? []) as typeof requests;
    }
  }

  function flush() {
    scheduled = false;
    const all = [...pending.values()];
    pending = new Map();
    for (let start = 0; start < all.length; start += maxBatchItems) {
      const batch = all.slice(start, start + maxBatchItems);
      const settle = batch.flatMap((entry) => entry.done);
      write(batch).then(
        () => {
          for (const one of settle) one.resolve();
        },
        (error: unknown) => {
          for (const one of settle) one.reject(error);
        },
      );
    }
  }

  return (item) =>
    new Promise<void>((resolve, reject) => {
      const key = keyAttributes.map((name) => String(item[name])).join('\u0000');
      const entry = pending.get(key);
      pending.set(key, { item, done: [...(entry?.done ?? []), { resolve, reject }] });
      if (pending.size >= maxBatchItems) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
