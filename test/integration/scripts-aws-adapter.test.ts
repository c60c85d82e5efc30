// The Lambda adapter's control-plane calls against moto_server: a function per script with the runtime layer and the
// resource-call function in its environment, a published version per deploy, the `live` alias moved on deploy and
// rollback; each function's log group with retention and own role under the boundary, removed with it, and old
// versions pruned; and a run's lease (DynamoDB Local), signed grant and tallied resource calls around the invocation.
import { type CloudWatchLogsClient, DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { GetRoleCommand, GetRolePolicyCommand, type IAMClient } from '@aws-sdk/client-iam';
import {
  GetAliasCommand,
  GetFunctionConfigurationCommand,
  LambdaClient,
  ListVersionsByFunctionCommand,
  PublishLayerVersionCommand,
} from '@aws-sdk/client-lambda';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ScriptFunctionUpkeep, teardownScriptFunctions } from '../../functions/adapters/aws/script-function-upkeep.js';
import { createLambdaScriptRuntime } from '../../functions/adapters/aws/script-functions.js';
import { runGraceMs, runGrantToken, verifyGrant } from '../../functions/scripts/runs/run-grant.js';
import { type RunTallies, createRunTallies } from '../../functions/scripts/runs/run-tallies.js';
import type { InvokeRequest, ScriptRuntime } from '../../functions/scripts/runs/runtime-port.js';
import { type Moto, givenScriptUpkeep, startMoto } from '../support/moto.js';
import { runGrant } from '../support/script-resource-calls.js';

let moto: Moto;
let client: LambdaClient;
let logs: CloudWatchLogsClient;
let iam: IAMClient;
let boundaryArn: string;
let upkeep: () => ScriptFunctionUpkeep;
let layerArn: string;
let runtime: ScriptRuntime;
let tallies: RunTallies;
const grantKey = randomBytes(32);
const resourceCallFunction = 'platform-ScriptResourceCall';
const resourceCallFunctionArn = `arn:aws:lambda:us-east-1:123456789012:function:${resourceCallFunction}`;
/** What the adapter sent to Lambda's Invoke, as moto received it. */
const invocations: { FunctionName?: string; Qualifier?: string; Payload?: Uint8Array }[] = [];

beforeAll(async () => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  tallies = createRunTallies();
  moto = await startMoto();
  client = new LambdaClient(moto.clientConfig);
  client.middlewareStack.add(
    (next) => async (args) => {
      if ((args.input as { Payload?: unknown }).Payload) invocations.push(args.input as (typeof invocations)[number]);
      return next(args);
    },
    { step: 'initialize' },
  );
  // moto's docker-less Lambda keeps layers where CreateFunction does not look; nothing here invokes, so docker mode is never used.
  await fetch(`${moto.endpoint}/moto-api/config`, { method: 'POST', body: JSON.stringify({ lambda: { use_docker: true } }) });
  const given = await givenScriptUpkeep(moto, client, resourceCallFunctionArn);
  [logs, iam, boundaryArn, upkeep] = [given.logs, given.iam, given.boundaryArn, given.upkeep];
  layerArn = (
    await client.send(new PublishLayerVersionCommand({ LayerName: 'script-runtime', Content: { ZipFile: zipSync({ 'nodejs/lambda.cjs': strToU8('') }) } }))
  ).LayerVersionArn!;
  const s3 = new S3Client({ ...moto.clientConfig, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: 'script-packages' }));
  runtime = createLambdaScriptRuntime({
    client,
    functionPrefix: 'platform-script-',
    upkeep: upkeep(),
    layerArn,
    waitSeconds: 10,
    resourceCallFunction,
    grantToken: async (grant, timeoutMs) => runGrantToken(grant, timeoutMs, grantKey),
    tallies,
    packages: { s3, bucket: () => 'script-packages' },
  });
});
afterAll(() => moto.stop());

const deployRequest = (scriptId: string, version: number, activate = true) => ({
  scriptId,
  version,
  runtime: 'nodejs18' as const,
  codeHash: `hash${version}`,
  timeoutSeconds: 30,
  memoryMb: 256,
  activate,
  code: async () => ({ fileName: 'script.cjs' as const, source: `module.exports.handler = async () => ${version};` }),
});

const aliasVersion = async (name: string) => (await client.send(new GetAliasCommand({ FunctionName: name, Name: 'live' }))).FunctionVersion;

describe('aws adapter: script functions on Lambda', () => {
  it('creates the function with the layer, runtime mapping and x86_64, publishes a version and points live at it', async () => {
    // Act
    const deployment = await runtime.deploy(deployRequest('scr_first', 1));
    // Assess
    const config = await client.send(new GetFunctionConfigurationCommand({ FunctionName: 'platform-script-scr_first' }));
    expect(deployment).toEqual({
      functionName: 'platform-script-scr_first',
      functionArn: config.FunctionArn,
      artifact: { functionVersion: '1', configKey: '30s-256mb' },
    });
    expect(config).toMatchObject({ Runtime: 'nodejs24.x', Handler: 'index.handler', MemorySize: 256, Timeout: 30, Architectures: ['x86_64'] });
    expect(config.Environment?.Variables).toEqual({ RESOURCE_CALL_FUNCTION: resourceCallFunction });
    expect(config.Layers?.map((layer) => layer.Arn)).toEqual([expect.stringContaining('script-runtime')]);
    expect(await aliasVersion('platform-script-scr_first')).toBe('1');
  });

  it('moves live to each new version, and back to an old one on rollback without uploading again', async () => {
    // Prepare
    const first = await runtime.deploy(deployRequest('scr_roll', 1));
    await runtime.deploy(deployRequest('scr_roll', 2));
    const afterSecond = await aliasVersion('platform-script-scr_roll');
    // Act
    await runtime.deploy({ ...deployRequest('scr_roll', 1), existing: first.artifact, code: () => Promise.reject(new Error('not read on rollback')) });
    // Assess
    const versions = await client.send(new ListVersionsByFunctionCommand({ FunctionName: 'platform-script-scr_roll' }));
    expect(afterSecond).toBe('2');
    expect(await aliasVersion('platform-script-scr_roll')).toBe('1');
    expect((await client.send(new GetFunctionConfigurationCommand({ FunctionName: 'platform-script-scr_roll' }))).Environment?.Variables).toEqual({
      RESOURCE_CALL_FUNCTION: resourceCallFunction,
    });
    expect(versions.Versions?.map((version) => version.Version)).toEqual(['$LATEST', '1', '2']);
  });

  it('builds a test-run version without moving live, and removes the function with the script', async () => {
    // Prepare
    await runtime.deploy(deployRequest('scr_test', 1));
    // Act
    const built = await runtime.deploy(deployRequest('scr_test', 2, false));
    const liveAfterBuild = await aliasVersion('platform-script-scr_test');
    await runtime.remove('scr_test');
    // Assess
    expect(built.artifact.functionVersion).toBe('2');
    expect(liveAfterBuild).toBe('1');
    await expect(client.send(new GetFunctionConfigurationCommand({ FunctionName: 'platform-script-scr_test' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(runtime.remove('scr_test')).resolves.toBeUndefined();
  });
});

describe('aws adapter: what surrounds a script function', () => {
  const logGroup = async (name: string) => (await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: `/aws/lambda/${name}` }))).logGroups ?? [];
  const versionsOf = async (name: string) =>
    (await client.send(new ListVersionsByFunctionCommand({ FunctionName: name }))).Versions?.map((version) => version.Version);

  it('gives each function its log group with retention and its own role under the boundary, and removes both with it', async () => {
    // Act
    await runtime.deploy(deployRequest('scr_logs', 1));
    const groups = await logGroup('platform-script-scr_logs');
    const role = (await iam.send(new GetRoleCommand({ RoleName: 'platform-script-scr_logs' }))).Role!;
    const policy = JSON.parse(
      decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: 'platform-script-scr_logs', PolicyName: 'script' }))).PolicyDocument!),
    );
    const config = await client.send(new GetFunctionConfigurationCommand({ FunctionName: 'platform-script-scr_logs' }));
    await runtime.remove('scr_logs');
    // Assess
    expect(groups).toEqual([expect.objectContaining({ logGroupName: '/aws/lambda/platform-script-scr_logs', retentionInDays: 14 })]);
    expect(config.Role).toBe(role.Arn);
    expect(role.PermissionsBoundary?.PermissionsBoundaryArn).toBe(boundaryArn);
    expect(policy.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: 'arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/platform-script-scr_logs:*',
      },
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: resourceCallFunctionArn },
    ]);
    expect(await logGroup('platform-script-scr_logs')).toEqual([]);
    await expect(iam.send(new GetRoleCommand({ RoleName: 'platform-script-scr_logs' }))).rejects.toMatchObject({ name: 'NoSuchEntityException' });
  });

  it('prunes published versions to the newest two and the one live points at, and uploads a pruned version again on rollback', async () => {
    // Prepare
    const first = await runtime.deploy(deployRequest('scr_prune', 1));
    for (const version of [2, 3, 4]) await runtime.deploy(deployRequest('scr_prune', version, false));
    const kept = await versionsOf('platform-script-scr_prune');
    const second = { functionVersion: '2', configKey: first.artifact.configKey };
    // Act
    const rolledBack = await runtime.deploy({ ...deployRequest('scr_prune', 2), existing: second });
    // Assess
    // Assess: moto numbers a new version after the versions it still holds, so only "not version 2 any more" is checked
    const live = await aliasVersion('platform-script-scr_prune');
    expect(kept).toEqual(['$LATEST', '1', '3', '4']);
    expect(rolledBack.artifact.functionVersion).not.toBe('2');
    expect(live).toBe(rolledBack.artifact.functionVersion);
    expect(await versionsOf('platform-script-scr_prune')).toEqual(expect.arrayContaining(['$LATEST', live]));
    expect((await versionsOf('platform-script-scr_prune'))!.length).toBeLessThanOrEqual(3);
  });
});

describe('aws adapter: teardown of every script function', () => {
  it('removes the functions of one prefix with their log groups and roles, and leaves other prefixes alone', async () => {
    // Prepare
    const other = createLambdaScriptRuntime({
      client,
      functionPrefix: 'otherstage-script-',
      layerArn,
      waitSeconds: 10,
      resourceCallFunction,
      grantToken: async (grant, timeoutMs) => runGrantToken(grant, timeoutMs, grantKey),
      tallies,
      upkeep: upkeep(),
      packages: { s3: new S3Client({ ...moto.clientConfig, forcePathStyle: true }), bucket: () => 'script-packages' },
    });
    await other.deploy(deployRequest('scr_a', 1));
    await other.deploy(deployRequest('scr_b', 1));
    await runtime.deploy(deployRequest('scr_stays', 1));
    // Act
    const removed = await teardownScriptFunctions({ lambda: client, logs, iam }, 'otherstage-script-');
    // Assess
    expect(removed).toEqual(['otherstage-script-scr_a', 'otherstage-script-scr_b']);
    for (const name of removed) {
      await expect(client.send(new GetFunctionConfigurationCommand({ FunctionName: name }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
      await expect(iam.send(new GetRoleCommand({ RoleName: name }))).rejects.toMatchObject({ name: 'NoSuchEntityException' });
    }
    expect((await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: '/aws/lambda/otherstage-script-' }))).logGroups).toEqual([]);
    expect((await client.send(new GetFunctionConfigurationCommand({ FunctionName: 'platform-script-scr_stays' }))).FunctionName).toBe(
      'platform-script-scr_stays',
    );
  });
});

describe('aws adapter: a run of a script function', () => {
  /** moto runs no code: without docker its Invoke answers with the payload it was sent. */
  beforeAll(async () => {
    await runtime.deploy(deployRequest('scr_runs', 1));
    await fetch(`${moto.endpoint}/moto-api/config`, { method: 'POST', body: JSON.stringify({ lambda: { use_docker: false } }) });
  });

  const invokeRequest = (scriptId: string): InvokeRequest => {
    const grant = runGrant('usr_runner', { scriptId, allowedResources: ['weather'], limitUsd: 0.5 });
    return {
      scriptId,
      version: 1,
      runtime: 'nodejs18',
      codeHash: 'hash1',
      qualifier: 'live',
      code: () => Promise.reject(new Error('not read to invoke')),
      memoryMb: 256,
      timeoutMs: 30_000,
      event: { data: { city: 'Oslo' }, trigger: { type: 'manual', source: null, event: null } },
      context: { scriptId, executionId: grant.executionId, userId: 'usr_runner', customization: {} },
      callResource: () => Promise.reject(new Error('a Lambda run calls resources through the resource-call function')),
      grant,
    };
  };

  it("invokes live with the run's signed grant next to event and context, and reports the calls its tally holds", async () => {
    // Prepare
    const request = invokeRequest('scr_runs');
    const tally = tallies.forRun(request.grant.executionId);
    await tally.countCall();
    await tally.addCost(0.01);
    // Act
    const outcome = await runtime.invoke(request);
    // Assess
    const sent = invocations.at(-1)!;
    const payload = JSON.parse(Buffer.from(sent.Payload!).toString('utf8'));
    expect(sent).toMatchObject({ FunctionName: 'platform-script-scr_runs', Qualifier: 'live' });
    expect(payload).toEqual({ event: request.event, context: request.context, token: expect.any(String) });
    expect(verifyGrant(payload.token, grantKey, Date.now())).toEqual({ ...request.grant, exp: request.grant.startedAt + request.timeoutMs + runGraceMs });
    expect(outcome.resourceUsage).toEqual({ calls: 1, cost: 0.01, stoppedForCost: false });
    await expect(tally.countCall()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
