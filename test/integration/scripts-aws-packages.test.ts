// Script packages on Lambda against moto_server: a version's installed dependencies become a layer named by the
// lock hash, published once and shared by every version with that lock; packages past the direct-upload limit
// reach Lambda through the script-packages bucket; the layer and its upload go when the tree is removed.
import {
  GetFunctionCommand,
  GetFunctionConfigurationCommand,
  LambdaClient,
  ListLayerVersionsCommand,
  PublishLayerVersionCommand,
} from '@aws-sdk/client-lambda';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLambdaScriptRuntime } from '../../functions/adapters/aws/script-functions.js';
import { runGrantToken } from '../../functions/scripts/runs/run-grant.js';
import { createRunTallies } from '../../functions/scripts/runs/run-tallies.js';
import type { DeployRequest, ScriptRuntime } from '../../functions/scripts/runs/runtime-port.js';
import { type Moto, givenScriptUpkeep, startMoto } from '../support/moto.js';

let moto: Moto;
let client: LambdaClient;
let s3: S3Client;
let runtime: ScriptRuntime;
const bucket = 'script-packages';
/** Small, so the test's packages pass it; the adapter's default is Lambda's own limit. */
const directUploadLimitBytes = 16 * 1024;

beforeAll(async () => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  moto = await startMoto();
  client = new LambdaClient(moto.clientConfig);
  s3 = new S3Client({ ...moto.clientConfig, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  // moto's docker-less Lambda keeps layers where CreateFunction does not look; nothing here invokes, so docker mode is never used.
  await fetch(`${moto.endpoint}/moto-api/config`, { method: 'POST', body: JSON.stringify({ lambda: { use_docker: true } }) });
  const { upkeep } = await givenScriptUpkeep(moto, client, 'arn:aws:lambda:us-east-1:123456789012:function:platform-ScriptResourceCall');
  const layer = await client.send(
    new PublishLayerVersionCommand({ LayerName: 'script-runtime', Content: { ZipFile: zipSync({ 'nodejs/lambda.cjs': strToU8('') }) } }),
  );
  runtime = createLambdaScriptRuntime({
    client,
    upkeep: upkeep(),
    functionPrefix: 'platform-script-',
    layerArn: layer.LayerVersionArn!,
    waitSeconds: 10,
    resourceCallFunction: 'platform-ScriptResourceCall',
    grantToken: async (grant, timeoutMs) => runGrantToken(grant, timeoutMs, randomBytes(32)),
    tallies: createRunTallies(),
    packages: { s3, bucket: () => bucket, directUploadLimitBytes },
  });
});
afterAll(() => moto.stop());

/** Incompressible bytes: the zip stays as large as its content. */
const tree = (lockHash: string, bytes: number) => ({
  lockHash,
  archive: async () =>
    zipSync({ 'nodejs/node_modules/blob/index.js': strToU8('module.exports = 1;'), 'nodejs/node_modules/blob/data.bin': randomBytes(bytes) }),
});

const request = (scriptId: string, source: string, dependencies?: DeployRequest['dependencies']): DeployRequest => ({
  scriptId,
  version: 1,
  runtime: 'nodejs18',
  codeHash: `hash-${scriptId}`,
  timeoutSeconds: 30,
  memoryMb: 256,
  activate: true,
  dependencies,
  code: async () => ({ fileName: 'script.cjs', source }),
});

const layersOf = async (functionName: string) =>
  (await client.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }))).Layers?.map((layer) => layer.Arn) ?? [];
const stored = async (key: string) =>
  s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
    () => true,
    () => false,
  );

describe('aws adapter: script packages', () => {
  it('publishes dependencies past the direct-upload limit as a layer through S3, and shares it between versions with the same lock', async () => {
    // Prepare
    const lockHash = 'a'.repeat(64);
    const packages = tree(lockHash, 64 * 1024);
    // Act
    await runtime.deploy(request('scr_pkg_one', 'module.exports.handler = async () => 1;', packages));
    await runtime.deploy(request('scr_pkg_two', 'module.exports.handler = async () => 2;', packages));
    // Assess
    const layerName = `platform-script-deps-${lockHash.slice(0, 48)}`;
    const versions = (await client.send(new ListLayerVersionsCommand({ LayerName: layerName }))).LayerVersions ?? [];
    expect(versions).toHaveLength(1);
    expect(await stored(`layers/${lockHash}.zip`)).toBe(true);
    expect(await layersOf('platform-script-scr_pkg_one')).toEqual([expect.stringContaining('script-runtime'), versions[0]!.LayerVersionArn]);
    expect(await layersOf('platform-script-scr_pkg_two')).toEqual([expect.stringContaining('script-runtime'), versions[0]!.LayerVersionArn]);
  });

  it("deletes every version of a removed tree's layer and its upload, while the function using it keeps its configuration", async () => {
    // Prepare
    const lockHash = 'c'.repeat(64);
    const layerName = `platform-script-deps-${lockHash.slice(0, 48)}`;
    await runtime.deploy(request('scr_pkg_gone', 'module.exports.handler = async () => 4;', tree(lockHash, 64 * 1024)));
    await client.send(new PublishLayerVersionCommand({ LayerName: layerName, Content: { ZipFile: await tree(lockHash, 1024).archive() } }));
    const published = (await client.send(new ListLayerVersionsCommand({ LayerName: layerName }))).LayerVersions ?? [];
    // Act: twice, as a removal taken over after its process died does.
    await runtime.removeDependencyTree(lockHash);
    await runtime.removeDependencyTree(lockHash);
    // Assess
    expect(published).toHaveLength(2);
    expect((await client.send(new ListLayerVersionsCommand({ LayerName: layerName }))).LayerVersions).toEqual([]);
    expect(await stored(`layers/${lockHash}.zip`)).toBe(false);
    expect(await layersOf('platform-script-scr_pkg_gone')).toEqual([expect.stringContaining('script-runtime'), expect.stringContaining(layerName)]);
  });

  it('sends small packages inline and function code past the limit through S3', async () => {
    // Prepare
    const large = `module.exports.handler = async () => '${randomBytes(24 * 1024).toString('base64')}';`;
    // Act
    await runtime.deploy(request('scr_small', 'module.exports.handler = async () => 3;', tree('b'.repeat(64), 1024)));
    await runtime.deploy(request('scr_large', large));
    // Assess
    expect(await stored(`layers/${'b'.repeat(64)}.zip`)).toBe(false);
    expect(await layersOf('platform-script-scr_small')).toHaveLength(2);
    expect(await stored('functions/scr_small/1-hash-scr_small.zip')).toBe(false);
    expect(await stored('functions/scr_large/1-hash-scr_large.zip')).toBe(true);
    expect((await client.send(new GetFunctionCommand({ FunctionName: 'platform-script-scr_large' }))).Configuration?.CodeSize).toBeGreaterThan(
      directUploadLimitBytes,
    );
  });
});
