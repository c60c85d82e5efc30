// What a script function needs around it, kept apart from the deploy and invoke flow of script-functions.ts: its
// own log group with a retention (created before the function, removed with it), its own execution role inside the
// stack's permissions boundary (one script cannot write another's logs), and old published versions pruned.
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { onFirstUse } from './on-first-use.js';

// The SDKs load on the first deploy or removal: the modules that pick this adapter are imported by every scripts handler.
const logsSdk = onFirstUse(() => import('@aws-sdk/client-cloudwatch-logs'));
const iamSdk = onFirstUse(() => import('@aws-sdk/client-iam'));
const lambdaSdk = onFirstUse(() => import('@aws-sdk/client-lambda'));

export interface ScriptFunctionUpkeepOptions {
  lambda: LambdaClient;
  logs: CloudWatchLogsClient;
  iam: IAMClient;
  /** Days a script's log events are kept. */
  retentionDays: number;
  /** Published versions kept besides any an alias points at. */
  keepVersions: number;
  /** The managed policy every script role is created under: the most any script may do. */
  boundaryArn: string;
  /** What each script may invoke for its resource calls. */
  resourceCallFunctionArn: string;
  region: string;
}

export const logGroupOf = (functionName: string) => `/aws/lambda/${functionName}`;
const rolePolicyName = 'script';

const ignoring = async <T>(call: Promise<T>, ...expected: Array<abstract new (...args: never[]) => Error>): Promise<T | undefined> => {
  try {
    return await call;
  } catch (error) {
    if (expected.some((type) => error instanceof type)) return undefined;
    throw error;
  }
};

export function createScriptFunctionUpkeep(options: ScriptFunctionUpkeepOptions) {
  const { lambda, logs, iam } = options;
  // The boundary is a policy of this account: its ARN gives the partition and the account of the log groups.
  const [, partition, , , account] = options.boundaryArn.split(':');
  const logGroupArn = (functionName: string) => `arn:${partition}:logs:${options.region}:${account}:log-group:${logGroupOf(functionName)}`;

  /** The script's own role: assumed by Lambda, writing only its own log group, under the boundary. Its name is the function's. */
  async function ensureRole(functionName: string): Promise<string> {
    const { CreateRoleCommand, EntityAlreadyExistsException, GetRoleCommand, PutRolePolicyCommand } = await iamSdk();
    const trust = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }] };
    const created = await ignoring(
      iam.send(
        new CreateRoleCommand({
          RoleName: functionName,
          AssumeRolePolicyDocument: JSON.stringify(trust),
          PermissionsBoundary: options.boundaryArn,
          Description: `script function ${functionName}`,
        }),
      ),
      EntityAlreadyExistsException,
    );
    const policy = {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: `${logGroupArn(functionName)}:*` },
        { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: options.resourceCallFunctionArn },
      ],
    };
    await iam.send(new PutRolePolicyCommand({ RoleName: functionName, PolicyName: rolePolicyName, PolicyDocument: JSON.stringify(policy) }));
    return created?.Role?.Arn ?? (await iam.send(new GetRoleCommand({ RoleName: functionName }))).Role!.Arn!;
  }

  return {
    /** Before the function exists: its log group with retention, and its role. Answers the role's ARN. */
    async prepare(functionName: string): Promise<string> {
      const { CreateLogGroupCommand, PutRetentionPolicyCommand, ResourceAlreadyExistsException } = await logsSdk();
      const logGroupName = logGroupOf(functionName);
      await ignoring(logs.send(new CreateLogGroupCommand({ logGroupName })), ResourceAlreadyExistsException);
      await logs.send(new PutRetentionPolicyCommand({ logGroupName, retentionInDays: options.retentionDays }));
      return ensureRole(functionName);
    },

    /** Whether a published version is still there (pruning may have removed an old one a rollback asks for). */
    async hasVersion(functionName: string, version: string): Promise<boolean> {
      const { GetFunctionConfigurationCommand, ResourceNotFoundException } = await lambdaSdk();
      return (
        (await ignoring(lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName, Qualifier: version })), ResourceNotFoundException)) !==
        undefined
      );
    },

    /** Deletes published versions but the newest `keepVersions` and any an alias points at. */
    async prune(functionName: string): Promise<string[]> {
      const { DeleteFunctionCommand, ListAliasesCommand, ListVersionsByFunctionCommand, ResourceNotFoundException } = await lambdaSdk();
      const versions: number[] = [];
      let marker: string | undefined;
      do {
        const page = await lambda.send(new ListVersionsByFunctionCommand({ FunctionName: functionName, Marker: marker }));
        versions.push(
          ...(page.Versions ?? [])
            .map((entry) => entry.Version!)
            .filter((version) => version !== '$LATEST')
            .map(Number),
        );
        marker = page.NextMarker;
      } while (marker);
      const aliases = await lambda.send(new ListAliasesCommand({ FunctionName: functionName }));
      const pinned = new Set(
        (aliases.Aliases ?? []).flatMap((alias) => [alias.FunctionVersion, ...Object.keys(alias.RoutingConfig?.AdditionalVersionWeights ?? {})]),
      );
      const stale = versions
        .sort((a, b) => b - a)
        .slice(options.keepVersions)
        .map(String)
        .filter((version) => !pinned.has(version));
      for (const version of stale)
        await ignoring(lambda.send(new DeleteFunctionCommand({ FunctionName: functionName, Qualifier: version })), ResourceNotFoundException);
      return stale;
    },

    /** After the function is deleted: its log group and its role go too. */
    remove: (functionName: string) => removeSurroundings({ logs, iam }, functionName),
  };
}

async function removeSurroundings(clients: { logs: CloudWatchLogsClient; iam: IAMClient }, functionName: string): Promise<void> {
  const [{ DeleteLogGroupCommand, ResourceNotFoundException: LogsNotFound }, { DeleteRoleCommand, DeleteRolePolicyCommand, NoSuchEntityException }] =
    await Promise.all([logsSdk(), iamSdk()]);
  await ignoring(clients.logs.send(new DeleteLogGroupCommand({ logGroupName: logGroupOf(functionName) })), LogsNotFound);
  await ignoring(clients.iam.send(new DeleteRolePolicyCommand({ RoleName: functionName, PolicyName: rolePolicyName })), NoSuchEntityException);
  await ignoring(clients.iam.send(new DeleteRoleCommand({ RoleName: functionName })), NoSuchEntityException);
}

/**
 * Removes every script function of a stack (names starting with `prefix`) with its log group and role, and any
 * role or log group left without its function: what `npm run teardown:scripts` runs before `cdk destroy`.
 */
export async function teardownScriptFunctions(
  clients: { lambda: LambdaClient; logs: CloudWatchLogsClient; iam: IAMClient },
  prefix: string,
): Promise<string[]> {
  const [{ paginateDescribeLogGroups }, { paginateListRoles }, { DeleteFunctionCommand, ResourceNotFoundException, paginateListFunctions }] = await Promise.all(
    [logsSdk(), iamSdk(), lambdaSdk()],
  );
  const names = new Set<string>();
  for await (const page of paginateListFunctions({ client: clients.lambda }, {}))
    for (const fn of page.Functions ?? []) if (fn.FunctionName?.startsWith(prefix)) names.add(fn.FunctionName);
  for await (const page of paginateListRoles({ client: clients.iam }, {}))
    for (const role of page.Roles ?? []) if (role.RoleName?.startsWith(prefix)) names.add(role.RoleName);
  for await (const page of paginateDescribeLogGroups({ client: clients.logs }, { logGroupNamePrefix: logGroupOf(prefix) })) {
    for (const group of page.logGroups ?? []) names.add(group.logGroupName!.slice(logGroupOf('').length));
  }
  for (const name of names) {
    await ignoring(clients.lambda.send(new DeleteFunctionCommand({ FunctionName: name })), ResourceNotFoundException);
    await removeSurroundings(clients, name);
  }
  return [...names].sort();
}

export type ScriptFunctionUpkeep = ReturnType<typeof createScriptFunctionUpkeep>;
