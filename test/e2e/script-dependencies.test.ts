// Scripts with packages over HTTP: a node script importing a real npm package and a python script importing a
// wheel from a private index (built here), installed in the sandbox, locked per version and shared between versions
// with the same lock, removed with the last script using them; refusals name the package or the size and change nothing.
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { startNpmRegistry } from '../support/npm-registry.js';
import { type PythonIndex, startPythonIndex } from '../support/python-index.js';
import { execute, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let index: PythonIndex;
const indexToken = 'idx-token-0123456789';

const nodeCode = `import ms from 'ms';
export async function handler(event) {
  return { millis: ms(event.data.span) };
}
`;
const pythonCode = `import tinyhelper

def handler(event, context):
    return {'shout': tinyhelper.shout(event['data']['word'])}
`;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
  index = await startPythonIndex(
    [
      { name: 'tinyhelper', version: '1.0.0', files: { '__init__.py': 'def shout(word):\n    return word.upper() + "!"\n' } },
      // Zeros: a tiny wheel that installs past 50 MB.
      { name: 'bigdata', version: '1.0.0', files: { '__init__.py': '', 'blob.bin': new Uint8Array(51 * 1024 * 1024) } },
      { name: 'nativepkg', version: '1.0.0', files: { '__init__.py': '' }, tag: 'cp311-cp311-linux_x86_64' },
      { name: 'sourceonly', version: '1.0.0', files: {}, sourceOnly: true },
    ],
    indexToken,
  );
  const registry = await api.as(owner.apiKey).post(sdk('setPackageRegistry'), { ecosystem: 'pypi', url: index.url, token: indexToken });
  expect(registry.status).toBe(200);
});
afterAll(async () => {
  await index.stop();
  await api.stop();
});

const post = (operation: string, body: unknown) => api.as(owner.apiKey).post(sdk(operation), body);
const versionsOf = async (scriptId: string) => (await post('listVersions', { scriptId })).body.data.versions;
const packagesDir = () => join(process.env.DATA_DIR!, 'script-packages');
const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
const storedTrees = () => filesIn(join(packagesDir(), 'script-deps'));
/** Trees the local runtime unpacked for its workers. */
const unpackedTrees = () => filesIn(join(process.env.DATA_DIR!, 'script-deps'));

/** A loopback port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return port;
}

describe('script dependencies: node', () => {
  let scriptId: string;

  it('installs a real npm package, locks it into the version and runs it once deployed', async () => {
    // Prepare
    const body = { name: 'uses ms', runtime: 'nodejs18', code: nodeCode, dependencies: { ms: '^2.1.0' } };
    // Act
    const created = await post('createScript', body);
    scriptId = created.body.data.id;
    const deployed = await post('deployScript', { scriptId });
    const run = await execute(api, owner, scriptId, { span: '2h' });
    const script = (await post('getScript', { scriptId })).body.data;
    // Assess
    expect(created.status).toBe(200);
    expect(deployed.status).toBe(200);
    expect(run.body.data).toMatchObject({ status: 'completed', output: { millis: 7_200_000 } });
    expect(script.dependencies).toEqual({
      declared: { ms: '^2.1.0' },
      resolved: { ms: expect.stringMatching(/^2\.1\.\d+$/) },
      lockHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      sizeBytes: expect.any(Number),
    });
    expect((await versionsOf(scriptId))[0].dependencies).toEqual(script.dependencies);
  }, 120_000);

  it('shares one installed tree between versions with the same lock, declared again or kept', async () => {
    // Act
    const redeclared = await post('createVersion', { scriptId, code: nodeCode.replace('millis', 'ms'), dependencies: { ms: '^2.1.0' } });
    const kept = await api.as(owner.apiKey).post(`${rest}/${scriptId}/versions`, { code: nodeCode.replace('millis', 'span'), version: '1.2.0' });
    await post('deployScript', { scriptId, version: redeclared.body.data.version });
    const run = await execute(api, owner, scriptId, { span: '1s' });
    // Assess
    const versions = await versionsOf(scriptId);
    expect(versions).toHaveLength(3);
    expect(new Set(versions.map((version: { dependencies: { lockHash: string } }) => version.dependencies.lockHash)).size).toBe(1);
    expect(kept.body.data.dependencies.declared).toEqual({ ms: '^2.1.0' });
    expect(run.body.data.output).toEqual({ ms: 1000 });
    const dataDir = process.env.DATA_DIR!;
    expect(readdirSync(join(dataDir, 'script-packages', 'script-deps'))).toEqual([`${versions[0].dependencies.lockHash}.zip`]);
    expect(readdirSync(join(dataDir, 'script-deps'))).toEqual([versions[0].dependencies.lockHash]);
  }, 120_000);

  it('refuses a package the registry does not have by name, and the deployed version keeps serving', async () => {
    // Prepare
    const before = (await versionsOf(scriptId)).length;
    // Act
    const refused = await post('createVersion', { scriptId, code: nodeCode, dependencies: { ms: '^2.1.0', 'no-such-package-zz-platform-test': '1.0.0' } });
    const run = await execute(api, owner, scriptId, { span: '1s' });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'dependencies', package: 'no-such-package-zz-platform-test' } });
    expect(refused.body.error.message).toContain('no-such-package-zz-platform-test');
    expect((await versionsOf(scriptId)).length).toBe(before);
    expect(run.body.data.output).toEqual({ ms: 1000 });
  }, 120_000);

  it('refuses a version naming its package when the registry cannot be reached, and the deployed version keeps serving', async () => {
    // Prepare
    const before = await versionsOf(scriptId);
    await post('setPackageRegistry', { ecosystem: 'npm', url: `http://127.0.0.1:${await closedPort()}/` });
    // Act
    const refused = await post('createVersion', { scriptId, code: nodeCode, dependencies: { ms: '^2.1.0' } });
    await post('clearPackageRegistry', { ecosystem: 'npm' });
    const run = await execute(api, owner, scriptId, { span: '1s' });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: { field: 'dependencies', package: 'ms' } } });
    expect(refused.body.error.message).toMatch(/could not be reached .* ms/);
    expect(await versionsOf(scriptId)).toEqual(before);
    expect(run.body.data.output).toEqual({ ms: 1000 });
  }, 120_000);

  it('installs exactly what a given lockfile locks, and refuses one that fetches from elsewhere', async () => {
    // Prepare
    const lock = (resolved: string) =>
      JSON.stringify({
        name: 'script-dependencies',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'script-dependencies', version: '1.0.0', dependencies: { ms: '2.1.3' } },
          'node_modules/ms': {
            version: '2.1.3',
            resolved,
            integrity: 'sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA==',
          },
        },
      });
    // Act
    const locked = await post('createVersion', {
      scriptId,
      code: nodeCode,
      dependencies: { ms: '2.1.3' },
      lockfile: lock('https://registry.npmjs.org/ms/-/ms-2.1.3.tgz'),
    });
    const elsewhere = await post('createVersion', {
      scriptId,
      code: nodeCode,
      dependencies: { ms: '2.1.3' },
      lockfile: lock('http://127.0.0.1:9/ms-2.1.3.tgz'),
    });
    // Assess
    expect(locked.status).toBe(200);
    expect(locked.body.data.dependencies).toMatchObject({ declared: { ms: '2.1.3' }, resolved: { ms: '2.1.3' } });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'dependencies', package: 'ms' } });
  }, 120_000);

  it('takes new dependencies in a PATCH as a new version of the same code, and drops them with an empty map', async () => {
    // Prepare
    const latest = (await versionsOf(scriptId))[0];
    // Act
    const patched = await api.as(owner.apiKey).patch(`${rest}/${scriptId}`, { dependencies: {} });
    const versions = await versionsOf(scriptId);
    // Assess
    expect(patched.status).toBe(200);
    expect(versions).toHaveLength(latest.version + 1);
    expect(versions[0].codeHash).toBe(latest.codeHash);
    expect(versions[0].dependencies).toBeUndefined();
    expect((await post('getScript', { scriptId })).body.data.dependencies.declared).toEqual({ ms: '^2.1.0' });
  });

  it('refuses dependency declarations the platform does not install, changing nothing', async () => {
    // Prepare
    const before = (await versionsOf(scriptId)).length;
    const bad = [
      { dependencies: { ms: 'git+https://example.com/ms.git' }, field: 'dependencies.ms' },
      { dependencies: { 'Bad Name': '1.0.0' }, field: 'dependencies' },
      { dependencies: ['requests==2.32.3'], field: 'dependencies' },
      { dependencies: 'ms', field: 'dependencies' },
      { dependencies: ['--index-url=http://evil'], field: 'dependencies.0' },
      { lockfile: '{}', field: 'lockfile' },
    ];
    // Act
    const answers = await Promise.all(bad.map(({ dependencies, lockfile }) => post('createVersion', { scriptId, code: nodeCode, dependencies, lockfile })));
    // Assess
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: bad[i]!.field } });
    });
    expect((await versionsOf(scriptId)).length).toBe(before);
  });

  it('keeps code and packages in the blob store and removes them, unpacked copy included, with the last script using them', async () => {
    // Prepare
    const other = (await post('createScript', { name: 'also uses ms', runtime: 'nodejs18', code: nodeCode, dependencies: { ms: '^2.1.0' } })).body.data.id;
    const lockHash = (await versionsOf(other))[0].dependencies.lockHash;
    const codeOf = (id: string) => join(packagesDir(), 'script-code', id);
    const hashes = (await versionsOf(scriptId)).map((version: { codeHash: string }) => version.codeHash);
    const storedCode = filesIn(codeOf(scriptId)).sort();
    // Act
    const first = await post('deleteScript', { scriptId });
    const treesWhileShared = storedTrees();
    const unpackedWhileShared = unpackedTrees();
    const second = await post('deleteScript', { scriptId: other });
    // Assess
    expect(storedCode).toEqual([...new Set(hashes)].sort());
    expect(first.body.data.hardDeleted).toBe(true);
    expect(second.body.data.hardDeleted).toBe(true);
    expect(treesWhileShared).toContain(`${lockHash}.zip`);
    expect([...filesIn(codeOf(scriptId)), ...filesIn(codeOf(other))]).toEqual([]);
    expect(storedTrees()).toEqual([]);
    expect(unpackedWhileShared).toContain(lockHash);
    expect(unpackedTrees()).not.toContain(lockHash);
  }, 120_000);

  it('suggests the packages the code imports but does not declare', async () => {
    // Act
    const node = await post('lintScript', {
      code: `import dayjs from 'dayjs';\nimport fs from 'node:fs';\nconst z = require('@scope/pkg/sub');\n${nodeCode}`,
      dependencies: { ms: '2.1.3' },
    });
    const python = await post('lintScript', { runtime: 'python3.11', code: `import json\nimport requests\nfrom yaml import safe_load\n${pythonCode}` });
    // Assess
    expect(node.body.data.suggestedDependencies).toEqual({ dayjs: '*', '@scope/pkg': '*' });
    expect(python.body.data.suggestedDependencies).toEqual(['requests', 'yaml', 'tinyhelper']);
  });
});

describe('script dependencies: python from a private index', () => {
  it('installs a wheel from the account registry with its token and runs it', async () => {
    // Act
    const created = await post('createScript', { name: 'uses tinyhelper', runtime: 'python3.11', code: pythonCode, dependencies: ['tinyhelper==1.0.0'] });
    const scriptId = created.body.data.id;
    const deployed = await post('deployScript', { scriptId });
    const run = await execute(api, owner, scriptId, { word: 'hey' });
    const registries = await post('listPackageRegistries', {});
    // Assess
    expect(created.status).toBe(200);
    expect(deployed.status).toBe(200);
    expect(run.body.data).toMatchObject({ status: 'completed', output: { shout: 'HEY!' } });
    expect((await post('getScript', { scriptId })).body.data.dependencies).toMatchObject({
      declared: ['tinyhelper==1.0.0'],
      resolved: { tinyhelper: '1.0.0' },
    });
    expect(registries.body.data.registries).toEqual([{ ecosystem: 'pypi', url: index.url, hasToken: true, updatedAt: expect.any(String) }]);
    expect(registries.text).not.toContain(indexToken);
  }, 120_000);

  it('refuses a version whose code and packages pass 50 MB, naming the size', async () => {
    // Prepare
    const before = (await post('listScripts', {})).body.data.count;
    // Act
    const refused = await post('createScript', { name: 'too big', runtime: 'python3.11', code: pythonCode, dependencies: ['bigdata==1.0.0'] });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.message).toMatch(/come to 5\d\.\d MB \(\d+ bytes\); the limit is 50 MB/);
    expect(refused.body.error.details.sizeBytes).toBeGreaterThan(50 * 1024 * 1024);
    expect((await post('listScripts', {})).body.data.count).toBe(before);
  }, 120_000);

  it('refuses a native wheel by name', async () => {
    // Act
    const refused = await post('createScript', { name: 'native', runtime: 'python3.11', code: pythonCode, dependencies: ['nativepkg'] });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { package: 'nativepkg' } });
    expect(refused.body.error.message).toContain('native code');
  });

  it('refuses bad registry settings and clears a registry with its token', async () => {
    // Act
    const bad = await Promise.all([
      post('setPackageRegistry', { ecosystem: 'cargo', url: index.url }),
      post('setPackageRegistry', { ecosystem: 'npm', url: 'ftp://registry.example.com/' }),
      post('setPackageRegistry', { ecosystem: 'npm', url: 'https://user:pw@registry.example.com/' }),
      post('setPackageRegistry', { ecosystem: 'npm', url: 'https://registry.example.com/', token: 'has space' }),
    ]);
    const stranger = await api.givenUser();
    const strangerCleared = await api.as(stranger.apiKey).post(sdk('clearPackageRegistry'), { ecosystem: 'pypi' });
    const kept = (await post('listPackageRegistries', {})).body.data.registries;
    const cleared = await post('clearPackageRegistry', { ecosystem: 'pypi' });
    // Assess
    expect(bad.map((answer) => [answer.status, answer.body.error.details.field])).toEqual([
      [400, 'ecosystem'],
      [400, 'url'],
      [400, 'url'],
      [400, 'token'],
    ]);
    expect(strangerCleared.body.data).toEqual({ ecosystem: 'pypi', cleared: false });
    expect(kept).toHaveLength(1);
    expect(cleared.body.data).toEqual({ ecosystem: 'pypi', cleared: true });
    expect((await post('listPackageRegistries', {})).body.data.registries).toEqual([]);
  });
});

describe('scripts with packages: why an install failed', () => {
  it('tells an unreachable index, a missing package, a package without a wheel and a version the index lacks apart (python)', async () => {
    // Prepare
    const user = await api.givenUser();
    const as = api.as(user.apiKey);
    const create = (dependencies: string[]) => as.post(sdk('createScript'), { name: 'packages', runtime: 'python3.11', code: pythonCode, dependencies });
    const nowhere = `http://127.0.0.1:${await closedPort()}/simple/`;
    await as.post(sdk('setPackageRegistry'), { ecosystem: 'pypi', url: nowhere });
    // Act
    const unreachable = await create(['tinyhelper==1.0.0']);
    await as.post(sdk('setPackageRegistry'), { ecosystem: 'pypi', url: index.url, token: indexToken });
    const missing = await create(['no-such-wheel-zz']);
    const sourceOnly = await create(['sourceonly==1.0.0']);
    const noSuchVersion = await create(['tinyhelper==9.9.9']);
    // Assess
    for (const refused of [unreachable, missing, sourceOnly, noSuchVersion]) expect(refused.body.error.code, refused.text).toBe('VALIDATION_ERROR');
    expect(unreachable.body.error.message).toMatch(
      new RegExp(`^the package index ${nowhere} could not be reached \\([^)]+\\) while installing tinyhelper; .*setPackageRegistry`),
    );
    expect(missing.body.error).toMatchObject({
      details: { package: 'no-such-wheel-zz' },
      message: `package no-such-wheel-zz does not exist in the package index ${index.url}`,
    });
    expect(sourceOnly.body.error).toMatchObject({ details: { package: 'sourceonly' } });
    expect(sourceOnly.body.error.message).toMatch(/^package sourceonly==1\.0\.0 has no wheel in .*, only source packages/);
    expect(noSuchVersion.body.error.message).toBe(`no release of tinyhelper matches ==9.9.9 in the package index ${index.url} (it has 1.0.0)`);
    expect((await as.post(sdk('listScripts'), {})).body.data.count).toBe(0);
  }, 240_000);

  it('tells an unreachable registry, a missing package and install scripts apart (npm)', async () => {
    // Prepare
    const registry = await startNpmRegistry([
      { name: 'harbour-tide', version: '1.0.0', files: { 'index.js': 'module.exports = 1;\n' } },
      {
        name: 'harbour-native',
        version: '1.0.0',
        files: { 'index.js': '', 'package.json': JSON.stringify({ name: 'harbour-native', version: '1.0.0', scripts: { install: 'node-gyp rebuild' } }) },
      },
    ]);
    const user = await api.givenUser();
    const as = api.as(user.apiKey);
    const create = (dependencies: Record<string, string>) => as.post(sdk('createScript'), { name: 'packages', code: nodeCode, dependencies });
    const nowhere = `http://127.0.0.1:${await closedPort()}/`;
    await as.post(sdk('setPackageRegistry'), { ecosystem: 'npm', url: nowhere });
    try {
      // Act
      const unreachable = await create({ 'harbour-tide': '1.0.0' });
      await as.post(sdk('setPackageRegistry'), { ecosystem: 'npm', url: registry.url });
      const missing = await create({ 'harbour-tide': '1.0.0', 'no-such-package-zz': '1.0.0' });
      const scripted = await create({ 'harbour-native': '1.0.0' });
      // Assess
      expect(unreachable.body.error.message).toMatch(
        new RegExp(`^the npm registry ${nowhere} could not be reached \\([^)]+\\) while installing harbour-tide; .*setPackageRegistry`),
      );
      expect(missing.body.error).toMatchObject({
        details: { package: 'no-such-package-zz' },
        message: `package no-such-package-zz does not exist in the npm registry ${registry.url}`,
      });
      expect(scripted.body.error).toMatchObject({ details: { package: 'harbour-native' }, message: expect.stringContaining('runs install scripts') });
      expect((await as.post(sdk('listScripts'), {})).body.data.count).toBe(0);
    } finally {
      await registry.stop();
    }
  }, 240_000);
});
