// Where a secret could surface besides its one rightful answer: log lines written while the platform works, and
// every item stored in DynamoDB Local.
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { dynamoClient } from '../../functions/adapters/local/dynamodb.js';
import { tableName } from '../../functions/platform/dynamo.js';
import { logger } from '../../functions/platform/logger.js';
import { tableNames } from '../../functions/tables.js';

/** Everything written to stdout and stderr while `run` runs, with the platform logging at DEBUG (kept, not shown). */
export async function capturingLogs<T>(run: () => Promise<T>): Promise<{ result: T; logs: string }> {
  const chunks: string[] = [];
  const original = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  const tap = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = tap;
  process.stderr.write = tap;
  logger.setLogLevel('DEBUG');
  try {
    return { result: await run(), logs: chunks.join('') };
  } finally {
    logger.setLogLevel('ERROR');
    process.stdout.write = original.out;
    process.stderr.write = original.err;
  }
}

/** Every item of every table of the platform, page by page, as JSON text. */
export async function everyStoredItem(): Promise<string> {
  const client = dynamoClient(process.env.DYNAMODB_ENDPOINT!);
  const dumps = await Promise.all(
    tableNames.map(async (name) => {
      const TableName = tableName(name);
      const pages: string[] = [];
      let ExclusiveStartKey: Record<string, any> | undefined;
      do {
        const page = await client.send(new ScanCommand({ TableName, ExclusiveStartKey }));
        pages.push(JSON.stringify(page.Items ?? []));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return pages.join('\n');
    }),
  );
  client.destroy();
  return dumps.join('\n');
}
