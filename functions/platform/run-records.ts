// What the records of runs share, a script's runs and a flow's executions alike: how long a record and its logs are
// kept, and one owner's records listed newest first within a time range through an index sorted by start time, reading
// only the attributes a list shows. Each area keeps its own table and record fields; this is their common mechanics.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './dynamo.js';

const day = 24 * 60 * 60;

/** A run's record is kept 90 days, its logs 30: logs are the bulk of a record and rarely read once a month old. */
export const runRetention = { resultsSeconds: 90 * day, logsSeconds: 30 * day } as const;

/** Epoch seconds for a run started at `startedAt`: when its record expires (DynamoDB's TTL), and when its logs do. */
export function runExpiry(startedAt: string): { expiresAt: number; logsExpireAt: number } {
  const started = Math.floor(Date.parse(startedAt) / 1000);
  return { expiresAt: started + runRetention.resultsSeconds, logsExpireAt: started + runRetention.logsSeconds };
}

export interface TimeRange {
  startDate?: string;
  endDate?: string;
}

/** An index of run records: partitioned by `partitionKey` (an owner), sorted by `startedAt` (an ISO time). */
export interface RunIndex {
  table: string;
  index: string;
  partitionKey: string;
  startedAt: string;
}

/** A condition on the records besides the range, in DynamoDB's filter syntax with its own value placeholders. */
export interface RunFilter {
  expression: string;
  values: Record<string, unknown>;
}

function keyCondition(at: RunIndex, partition: string, range: TimeRange, filter?: RunFilter) {
  const bounds =
    range.startDate && range.endDate
      ? { condition: ' AND #startedAt BETWEEN :start AND :end', values: { ':start': range.startDate, ':end': range.endDate } }
      : range.startDate
        ? { condition: ' AND #startedAt >= :start', values: { ':start': range.startDate } }
        : range.endDate
          ? { condition: ' AND #startedAt <= :end', values: { ':end': range.endDate } }
          : { condition: '', values: {} };
  return {
    TableName: at.table,
    IndexName: at.index,
    KeyConditionExpression: `#partition = :partition${bounds.condition}`,
    ...(filter && { FilterExpression: filter.expression }),
    ExpressionAttributeNames: { '#partition': at.partitionKey, ...(bounds.condition && { '#startedAt': at.startedAt }) },
    ExpressionAttributeValues: { ':partition': partition, ...bounds.values, ...filter?.values },
    ScanIndexForward: false,
  };
}

/**
 * The records under `partition` started within the range (and matching `filter`), newest first; with `first`, the
 * newest that many and any others started at the same instant as the last of them (DynamoDB orders records of one
 * instant as it likes, so the caller's own order decides which of them come first). With `attributes`, only those are
 * read: a list of hundreds of runs then carries a few fields of each, not their outputs and logs.
 */
export async function listRuns<T>(
  at: RunIndex,
  partition: string,
  range: TimeRange,
  options: { attributes?: readonly string[]; filter?: RunFilter; first?: number } = {},
): Promise<T[]> {
  // Every projected name goes through a placeholder: `status`, `timestamp` and `duration` are reserved words.
  const projected = options.attributes ? [...new Set([...options.attributes, at.startedAt])].map((name, index) => [`#a${index}`, name] as const) : [];
  const read = async (within: TimeRange, want?: number) => {
    const query = keyCondition(at, partition, within, options.filter);
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          ...query,
          ExpressionAttributeNames: { ...query.ExpressionAttributeNames, ...Object.fromEntries(projected) },
          ...(projected.length && { ProjectionExpression: projected.map(([placeholder]) => placeholder).join(', ') }),
          ...(want !== undefined && { Limit: want - items.length }),
          ExclusiveStartKey,
        }),
      );
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && (want === undefined || items.length < want));
    return items;
  };
  const { first } = options;
  if (first === undefined) return (await read(range)) as T[];
  if (first === 0) return [];
  // One more than asked shows whether the last record asked for shares its instant with records past it.
  const items = await read(range, first + 1);
  if (items.length <= first) return items as T[];
  const edge = items[first - 1]![at.startedAt] as string;
  if (items[first]![at.startedAt] !== edge) return items.slice(0, first) as T[];
  const tied = await read({ startDate: edge, endDate: edge });
  return [...items.filter((item) => item[at.startedAt] !== edge), ...tied] as T[];
}

/** How many records under `partition` started within the range, counted by DynamoDB, none read here. */
export async function countRuns(at: RunIndex, partition: string, range: TimeRange): Promise<number> {
  const query = keyCondition(at, partition, range);
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({ ...query, Select: 'COUNT', ExclusiveStartKey }));
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}
