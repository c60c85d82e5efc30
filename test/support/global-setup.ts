// One DynamoDB Local (in memory) for the whole run; each test file starts its own platform against it.
import type { TestProject } from 'vitest/node';
import { freePort } from '../../bin/local.js';
import { ensureTables, startDynamoLocal } from '../../functions/adapters/local/dynamodb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const dynamo = await startDynamoLocal({ port: await freePort() });
  await ensureTables(dynamo.endpoint, (name) => `platform-${name}`);
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
