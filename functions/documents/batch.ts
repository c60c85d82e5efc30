// BatchWrite and BatchGet in DynamoDB's page sizes, retrying what it hands back unprocessed; Query through all pages.
import pMap from 'p-map';
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#platform/dynamo.js';

type Item = Record<string, unknown>;
type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));

/** At most 25 requests per call and `parallel` calls in flight. */
export async function batchWrite(table: string, requests: WriteRequest[], parallel = 4): Promise<void> {
  const pages: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += 25) pages.push(requests.slice(start, start + 25));
  const write = async (page: WriteRequest[]) => {
    let pending = page;
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt > 0) await pause(attempt);
      const result = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (result.UnprocessedItems?.[table] ?? []) as WriteRequest[];
    }
  };
  await pMap(pages, write, { concurrency: parallel });
}

/** Items for `keys` (at most 100 per call), in no particular order; missing keys are simply absent. */
export async function batchGet<T>(table: string, keys: Item[]): Promise<T[]> {
  const items: T[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let pending: Item[] = keys.slice(start, start + 100);
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt > 0) await pause(attempt);
      const result = await dynamo().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }));
      items.push(...((result.Responses?.[table] ?? []) as T[]));
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Item[];
    }
  }
  return items;
}
