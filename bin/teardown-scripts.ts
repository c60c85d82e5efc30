// `npm run teardown:scripts -- <stack name>`: removes every script function the deployed platform created at run
// time (with their log groups and roles). CloudFormation does not know them, so run it before `cdk destroy`.
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { IAMClient } from '@aws-sdk/client-iam';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { teardownScriptFunctions } from '../functions/adapters/aws/script-function-upkeep.js';

const stackName = process.argv[2];
if (!stackName) {
  console.error('usage: npm run teardown:scripts -- <stack name, e.g. PlatformStack or PlatformStack-<stage>>');
  process.exit(2);
}
const removed = await teardownScriptFunctions(
  { lambda: new LambdaClient({}), logs: new CloudWatchLogsClient({}), iam: new IAMClient({}) },
  `${stackName}-script-`,
);
console.log(removed.length ? `removed ${removed.length} script functions:\n${removed.join('\n')}` : 'no script functions left');
