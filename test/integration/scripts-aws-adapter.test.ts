// The Lambda adapter's control-plane calls against moto_server: a function per script with the runtime layer,
// a published version per deploy, and the `live` alias moved on deploy and rollback.
import { GetAliasCommand, GetFunctionConfigurationCommand, LambdaClient, ListVersionsByFunctionCommand, PublishLayerVersionCommand } from '@aws-sdk/client-lambda';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLambdaScriptRuntime } from '../../functions/adapters/aws/script-functions.js';
import type { ScriptRuntime } from '../../functions/scripts/runtime-port.js';
import { type Moto, startMoto } from '../support/moto.js';

let moto: Moto;
let client: LambdaClient;
let runtime: ScriptRuntime;

/** moto checks that the execution role exists; IAM's query API is enough to make one. */
async function createRole(endpoint: string, name: string): Promise<string> {
  const policy = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }] });
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=x' },
    body: new URLSearchParams({ Action: 'CreateRole', Version: '2010-05-08', RoleName: name, AssumeRolePolicyDocument: policy }).toString(),
  });
  const text = await response.text();
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(text)?.[1];
  if (!arn) throw new Error(`CreateRole failed: ${text.slice(0, 300)}`);
  return arn;
}

beforeAll(async () => {
  moto = await startMoto();
  client = new LambdaClient(moto.clientConfig);
  // moto's docker-less Lambda keeps layers where CreateFunction does not look; nothing here invokes, so docker mode is never used.
  await fetch(`${moto.endpoint}/moto-api/config`, { method: 'POST', body: JSON.stringify({ lambda: { use_docker: true } }) });
  const roleArn = await createRole(moto.endpoint, 'platform-script-role');
  const layer = await client.send(new PublishLayerVersionCommand({ LayerName: 'script-runtime', Content: { ZipFile: zipSync({ 'nodejs/lambda.cjs': strToU8('') }) } }));
  runtime = createLambdaScriptRuntime({ client, roleArn, functionPrefix: 'platform-script-', layerArn: layer.LayerVersionArn!, waitSeconds: 10 });
});
afterAll(() => moto.stop());

const deployRequest = (scriptId: string, version: number, activate = true) => ({
  scriptId, version, runtime: 'nodejs18' as const, codeHash: `hash${version}`, timeoutSeconds: 30, memoryMb: 256, activate,
  code: async () => ({ fileName: 'script.cjs' as const, source: `module.exports.handler = async () => ${version};` }),
});

const aliasVersion = async (name: string) => (await client.send(new GetAliasCommand({ FunctionName: name, Name: 'live' }))).FunctionVersion;

describe('aws adapter: script functions on Lambda', () => {
  it('creates the function with the layer, runtime mapping and x86_64, publishes a version and points live at it', async () => {
    // Act
    const deployment = await runtime.deploy(deployRequest('scr_first', 1));
    // Assess
    const config = await client.send(new GetFunctionConfigurationCommand({ FunctionName: 'platform-script-scr_first' }));
    expect(deployment).toEqual({ functionName: 'platform-script-scr_first', functionArn: config.FunctionArn, artifact: { functionVersion: '1', configKey: '30s-256mb' } });
    expect(config).toMatchObject({ Runtime: 'nodejs24.x', Handler: 'index.handler', MemorySize: 256, Timeout: 30, Architectures: ['x86_64'] });
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
    await expect(client.send(new GetFunctionConfigurationCommand({ FunctionName: 'platform-script-scr_test' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(runtime.remove('scr_test')).resolves.toBeUndefined();
  });
});
