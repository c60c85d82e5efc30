import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableEnvVar } from './env-names.js';
import { settings } from './settings.js';
import type { TableName } from './table-definition.js';
import { traced } from './tracer.js';

let client: DynamoDBDocumentClient | undefined;

/**
 * DynamoDB Local's address, read on every request: stores keep the client they were built with, and a local platform
 * restarted in the same process (the benchmarks run one after another) listens on a new port.
 */
let parsedEndpoint: { from: string; endpoint: { protocol: string; hostname: string; port: number; path: string } } | undefined;

async function localEndpoint() {
  const from = settings.dynamoEndpoint!;
  if (parsedEndpoint?.from !== from) {
    const url = new URL(from);
    parsedEndpoint = { from, endpoint: { protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: url.pathname } };
  }
  return parsedEndpoint.endpoint;
}

export function dynamo(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(
    traced(
      new DynamoDBClient({
        region: settings.region,
        ...(settings.dynamoEndpoint && {
          endpoint: localEndpoint,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      }),
    ),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return client;
}

/** Names resolved once: the environment that decides them is fixed for a process, and reading it is not free. */
const resolvedTableNames = new Map<TableName, string>();

/**
 * Locally every function shares one process, so the tables an invocation was granted travel with its async context
 * (the local runtime runs each invocation in `withGrantedTables`), as each Lambda's environment carries them on AWS.
 */
const grantedTables = new AsyncLocalStorage<TableGrant>();

/** What local function `name` may touch, as its grants would allow on AWS; built once per function, not per invocation. */
export interface TableGrant {
  name: string;
  tables: ReadonlySet<string>;
}

export const tableGrant = (name: string, tables: Iterable<string>): TableGrant => ({ name, tables: new Set(tables) });

/** Runs one local invocation under its function's grant. */
export const withGrantedTables = <T>(grant: TableGrant, run: () => T): T => grantedTables.run(grant, run);

/** Physical table name: given by the stack per granted table on AWS, `platform-<name>` locally. */
export function tableName(name: TableName): string {
  const granted = grantedTables.getStore();
  if (granted && !granted.tables.has(name)) throw new Error(`table ${name} is not granted to ${granted.name} (its route or function does not declare it)`);
  const resolved = resolvedTableNames.get(name);
  if (resolved) return resolved;
  const fromEnv = settings.grantedTable(name);
  if (!fromEnv && settings.mode !== 'local') throw new Error(`table ${name} is not granted to this function (${tableEnvVar(name)} unset)`);
  const physical = fromEnv ?? `${settings.tablePrefix}${name}`;
  resolvedTableNames.set(name, physical);
  return physical;
}

/** DynamoDB's refusal of a conditional write, to turn into a domain error. */
export const isConditionFailure = (error: unknown) =>
  error instanceof Error && (error.name === 'ConditionalCheckFailedException' || error.name === 'TransactionCanceledException');

/** The write's answer, or undefined when its condition did not hold. */
export async function unlessConditionFails<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Every page of a query, for lists small enough to hold (one owner's items, a published set). */
export async function queryAll<T>(input: QueryCommandInput): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...((page.Items ?? []) as T[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
