// Script dependencies on AWS: the installer functions' real code (npm in-process against the real npm registry, the
// pip handler in a Python process against a package index built here) storing trees in S3 (moto), reached by the
// AWS adapter through a local Lambda Invoke API, so requests, answers and refusals cross the HTTP boundary.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLambdaPackageInstaller } from '../../functions/adapters/aws/package-installer.js';
import { createS3BlobStore } from '../../functions/adapters/aws/s3-blob-store.js';
import {
  type InstallRequest,
  type PackageInstaller,
  PackageRefusedError,
  PackageResolutionError,
  PackageTooLargeError,
} from '../../functions/scripts/packages/dependency-port.js';
import { createNpmInstallerFunction } from '../../functions/scripts/packages/installer-function.js';
import { installPython, plainSite } from '../../functions/scripts/packages/package-managers.js';
import { archiveKey, storeTree } from '../../functions/scripts/packages/package-trees.js';
import { pythonExecutable } from '../../functions/scripts/authoring/python.js';
import { type LambdaInvokeApi, startLambdaInvokeApi } from '../support/lambda-invoke-api.js';
import { type Moto, startMoto } from '../support/moto.js';
import { type PythonIndex, startPythonIndex } from '../support/python-index.js';

const bucket = 'script-packages';
const functions = { npm: 'platform-NpmInstaller', pip: 'platform-PipInstaller', stalled: 'platform-StalledInstaller', broken: 'platform-BrokenInstaller' };
const installerDir = fileURLToPath(new URL('../../functions/scripts/packages/installer/', import.meta.url));
const token = 'idx-token-0123456789';
const maxBytes = 50 * 1024 * 1024;
let moto: Moto;
let s3: S3Client;
let index: PythonIndex;
let lambdaApi: LambdaInvokeApi;
let installer: PackageInstaller;
let python: string;

/** The pip installer function as Lambda's Python runtime calls it, its boto3 pointed at moto. */
async function pipHandler(payload: unknown): Promise<unknown> {
  const driver =
    'import json, os, sys\nsys.path.insert(0, os.environ["INSTALLER"])\nimport pip_installer\nprint(json.dumps(pip_installer.handler(json.loads(sys.stdin.read()), None)))';
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    INSTALLER: installerDir,
    SCRIPT_PACKAGES_BUCKET: bucket,
    PACKAGE_INSTALL_TIMEOUT_SECONDS: '60',
    AWS_ENDPOINT_URL_S3: moto.endpoint,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_DEFAULT_REGION: 'us-east-1',
  };
  const child = spawn(python, ['-c', driver], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const [stdout, stderr]: Buffer[][] = [[], []];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(JSON.stringify(payload));
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (status !== 0) throw new Error(`the pip installer exited ${status}: ${Buffer.concat(stderr).toString().slice(-1000)}`);
  return JSON.parse(Buffer.concat(stdout).toString());
}

beforeAll(async () => {
  process.env.PLATFORM_MODE = 'local';
  process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
  python = (await pythonExecutable('python3'))!;
  moto = await startMoto();
  s3 = new S3Client({ ...moto.clientConfig, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  index = await startPythonIndex(
    [
      { name: 'tinyhelper', version: '1.0.0', files: { '__init__.py': 'def shout(word):\n    return word.upper() + "!"\n' } },
      { name: 'nativepkg', version: '1.0.0', files: { '__init__.py': '' }, tag: 'cp311-cp311-linux_x86_64' },
    ],
    token,
  );
  const npmInstaller = createNpmInstallerFunction({
    blobs: () => createS3BlobStore({ ...moto.clientConfig, forcePathStyle: true }, bucket),
    workDir: mkdtempSync(join(tmpdir(), 'npm-installer-')),
    timeoutMs: 120_000,
  });
  lambdaApi = await startLambdaInvokeApi({
    [functions.npm]: npmInstaller,
    [functions.pip]: pipHandler,
    // What Lambda reports of a function stopped at its timeout, and of one that threw.
    [functions.stalled]: async () => Promise.reject(new Error('2026-01-01T00:00:25.000Z 8f1e Task timed out after 25.00 seconds')),
    [functions.broken]: async () => Promise.reject(new TypeError('Cannot read properties of undefined')),
  });
  installer = installerOf(functions.npm);
});
afterAll(async () => {
  delete process.env.ALLOW_PRIVATE_UPSTREAMS;
  await Promise.all([lambdaApi.close(), index.stop()]);
  await moto.stop();
});

const storedKeys = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((object) => object.Key).sort();
const storedFiles = async (key: string) =>
  Object.keys(unzipSync(await (await createS3BlobStore({ ...moto.clientConfig, forcePathStyle: true }, bucket).get(key))!));
/** The adapter invoking `npm` as its npm installer function. */
const installerOf = (npm: string) =>
  createLambdaPackageInstaller(() => new LambdaClient({ ...moto.clientConfig, endpoint: lambdaApi.endpoint }), { npm, pip: functions.pip });
const refusal = (request: InstallRequest) =>
  installer.install(request).then(
    () => undefined,
    (error: Error) => error,
  );
const pypi = { url: '', token };

describe('aws adapter: package installer functions', () => {
  it('installs a real npm package in the npm installer and finds its tree in S3 under the lock hash', async () => {
    // Act
    const tree = await installer.install({ userId: 'usr_installer', runtime: 'nodejs18', declared: { ms: '2.1.3' }, maxBytes });
    // Assess
    expect(tree).toEqual({ resolved: { ms: '2.1.3' }, lockHash: expect.stringMatching(/^[0-9a-f]{64}$/), sizeBytes: expect.any(Number), added: true });
    expect(await storedKeys()).toEqual([archiveKey(tree.lockHash)]);
    expect(await storedFiles(archiveKey(tree.lockHash))).toEqual(
      expect.arrayContaining(['nodejs/node_modules/ms/index.js', 'nodejs/node_modules/ms/package.json']),
    );
    expect(lambdaApi.invoked).toEqual([functions.npm]);
  }, 120_000);

  it('refuses a missing npm package and one with install scripts by name, storing nothing', async () => {
    // Prepare
    const before = await storedKeys();
    // Act
    const missing = await refusal({
      userId: 'usr_installer',
      runtime: 'nodejs18',
      declared: { ms: '2.1.3', 'no-such-package-zz-platform-test': '1.0.0' },
      maxBytes,
    });
    const scripted = await refusal({ userId: 'usr_installer', runtime: 'nodejs18', declared: { '@scarf/scarf': '1.4.0' }, maxBytes });
    // Assess
    expect(missing).toBeInstanceOf(PackageResolutionError);
    expect(missing).toMatchObject({ packageName: 'no-such-package-zz-platform-test', message: expect.stringContaining('does not exist') });
    expect(scripted).toBeInstanceOf(PackageRefusedError);
    expect(scripted).toMatchObject({ packageName: '@scarf/scarf', message: expect.stringContaining('install scripts') });
    expect(await storedKeys()).toEqual(before);
  }, 120_000);

  it('installs a wheel from a private index in the pip installer, named by its lock and files as the local installer names it', async () => {
    // Prepare
    const request: InstallRequest = {
      userId: 'usr_installer',
      runtime: 'python3.11',
      declared: ['tinyhelper==1.0.0'],
      registry: { ...pypi, url: index.url },
      maxBytes,
    };
    const localSite = mkdtempSync(join(tmpdir(), 'pip-local-'));
    // Act
    const tree = await installer.install(request);
    const local = await installPython(plainSite(localSite, join(localSite, 'cache'), 60_000), request, python);
    // The same store: the local tree, named as the local installer names it, is found there already.
    const localTree = await storeTree(
      createS3BlobStore({ ...moto.clientConfig, forcePathStyle: true }, bucket),
      'python3.11',
      local.tree,
      local.lock,
      maxBytes,
    );
    // Assess
    expect(tree).toEqual({ resolved: { tinyhelper: '1.0.0' }, lockHash: localTree.lockHash, sizeBytes: localTree.sizeBytes, added: true });
    expect(localTree.added).toBe(false);
    expect(await storedFiles(archiveKey(tree.lockHash))).toContain('python/tinyhelper/__init__.py');
    expect(lambdaApi.invoked.at(-1)).toBe(functions.pip);
  }, 120_000);

  it('refuses a native wheel, a missing one (saying it does not exist) and a tree past its size by name or size, storing nothing', async () => {
    // Prepare
    const before = await storedKeys();
    const registry = { ...pypi, url: index.url };
    // Act
    const native = await refusal({ userId: 'usr_installer', runtime: 'python3.11', declared: ['nativepkg'], registry, maxBytes });
    const missing = await refusal({ userId: 'usr_installer', runtime: 'python3.11', declared: ['nosuchwheel==1.0'], registry, maxBytes });
    const large = await refusal({ userId: 'usr_installer', runtime: 'python3.11', declared: ['tinyhelper'], registry, maxBytes: 10 });
    // Assess
    expect(native).toBeInstanceOf(PackageRefusedError);
    expect(native).toMatchObject({ packageName: 'nativepkg', message: expect.stringContaining('native code') });
    expect(missing).toBeInstanceOf(PackageResolutionError);
    expect(missing).toMatchObject({ packageName: 'nosuchwheel', message: `package nosuchwheel does not exist in the package index ${index.url}` });
    expect(large).toBeInstanceOf(PackageTooLargeError);
    expect((large as PackageTooLargeError).sizeBytes).toBeGreaterThan(10);
    expect(JSON.stringify([native, missing].map((error) => error!.message))).not.toContain(token);
    expect(await storedKeys()).toEqual(before);
  }, 120_000);

  it('refuses the packages of an installer stopped at its timeout by name, and fails on any other function error', async () => {
    // Prepare
    const request: InstallRequest = { userId: 'usr_installer', runtime: 'nodejs18', declared: { ms: '2.1.3' }, maxBytes };
    // Act
    installer = installerOf(functions.stalled);
    const stalled = await refusal(request);
    installer = installerOf(functions.broken);
    const broken = await refusal(request);
    installer = installerOf(functions.npm);
    // Assess
    expect(stalled).toBeInstanceOf(PackageResolutionError);
    expect(stalled).toMatchObject({ packageName: 'ms', message: expect.stringContaining('time limit') });
    expect(broken).not.toBeInstanceOf(PackageResolutionError);
    expect(broken!.message).toContain('failed');
  });

  it('refuses a registry at a private address before invoking an installer', async () => {
    // Prepare
    const invoked = lambdaApi.invoked.length;
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'false';
    // Act
    const refused = await refusal({
      userId: 'usr_installer',
      runtime: 'python3.11',
      declared: ['tinyhelper'],
      registry: { ...pypi, url: index.url },
      maxBytes,
    });
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    // Assess
    expect(refused).toBeInstanceOf(PackageResolutionError);
    expect(refused!.message).toContain('private address');
    expect(lambdaApi.invoked.length).toBe(invoked);
  });
});
