import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type TableName, tableEnvVar } from '../tables.js';
import { config } from './config.js';

let client: DynamoDBDocumentClient | undefined;

export function dynamo(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: config.region,
      ...(config.dynamoEndpoint && {
        endpoint: config.dynamoEndpoint,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return client;
}

/** Physical table name: given by the stack per granted table on AWS, `platform-<name>` locally. */
export function tableName(name: TableName): string {
  const fromEnv = process.env[tableEnvVar(name)];
  if (fromEnv) return fromEnv;
  if (config.mode === 'local') return `${process.env.TABLE_PREFIX ?? 'platform-'}${name}`;
  throw new Error(`table ${name} is not granted to this function (${tableEnvVar(name)} unset)`);
}

/** DynamoDB's refusal of a conditional write, to turn into a domain error. */
export const isConditionFailure = (error: unknown) =>
  error instanceof Error && (error.name === 'ConditionalCheckFailedException' || error.name === 'TransactionCanceledException');
