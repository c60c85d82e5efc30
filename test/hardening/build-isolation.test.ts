// Attacks of one tenant's builds and installs on the others: a build's processes (one that starts a session of its
// own included) run under the lowest CPU share, which holds across sessions, and every script worker shares one
// group, so neither builds nor a flood of workers outweighs the platform; and a package another account installed is
// not in the download cache of the next, so a lockfile naming its integrity cannot read it out.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cpuShareMode } from '../../functions/adapters/local/cpu-shares.js';
import { printAttackSummary } from '../support/attack-summary.js';
import { type NpmPackage, type NpmRegistry, startNpmRegistry } from '../support/npm-registry.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { childrenWith, cpuShareOf, groupShare, runningWith } from '../support/processes.js';
import { sdk } from '../support/scripts.js';
import { givenRepo, givenTemplate, manifest, templatesPath } from '../support/templates.js';

printAttackSummary('build isolation (CPU share across sessions, per-account download caches)');

process.env.TEMPLATE_BUILD_WAIT_SECONDS = '1';

let api: TestApi;
let registry: NpmRegistry;
let [owner, thief]: TestUser[] = [];

/** Only the owner's registry serves it: its files are the owner's. */
const privatePackage: NpmPackage = {
  name: `harbour-private-${process.pid}`,
  version: '1.0.0',
  files: { 'index.js': "module.exports = { secret: 'owner-only' };\n" },
};

beforeAll(async () => {
  [api, registry] = await Promise.all([startTestPlatform(), startNpmRegistry([privatePackage])]);
  [owner, thief] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(async () => {
  await registry.stop();
  await api.stop();
});

describe('hardening: a build cannot outweigh its neighbours', () => {
  it('runs every process of a build, one in a session of its own included, under the lowest CPU share', async () => {
    // Prepare: sleeps no other process runs; their durations are the markers
    const marker = `${Date.now()}${process.pid}`;
    const [plain, escaped] = [`301.${marker}`, `302.${marker}`];
    const repo = givenRepo();
    const gitHash = repo.commit({
      'template.json': JSON.stringify(manifest({}, { buildCommand: `sleep ${plain} & setsid sleep ${escaped} & wait` })),
    });
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    // Act
    const started = await api.as(owner.apiKey).post(`${templatesPath}/${templateId}/build`, {});
    const [plainPid, escapedPid] = await vi.waitFor(
      () => {
        const found = [runningWith(['sleep', plain]), runningWith(['sleep', escaped])];
        expect(found.map((pids) => pids.length)).toEqual([1, 1]);
        return found.map((pids) => pids[0]!);
      },
      { timeout: 120_000, interval: 200 },
    );
    // Assess
    expect(started.body.data.buildStatus).toBe('building');
    const mode = cpuShareMode();
    if (mode.kind === 'cgroup') {
      expect(cpuShareOf(plainPid!)).toEqual(groupShare('builds'));
      expect(cpuShareOf(escapedPid!)).toEqual(groupShare('builds'));
    } else {
      // Without cgroups only the build's own session is lowered (docs/security.md says what escapes it).
      expect(cpuShareOf(plainPid!)).toEqual({ autogroupNice: 19 });
    }
  }, 180_000);

  it("runs every script worker in the scripts' one CPU group", async () => {
    // Prepare
    const created = await api.as(owner.apiKey).post(sdk('createScript'), { name: 'share-probe', code: 'export async function handler() { return 1; }' });
    expect(created.status, created.text).toBe(200);
    await api.as(owner.apiKey).post(sdk('deployScript'), { scriptId: created.body.data.id });
    // Act
    const run = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: created.body.data.id, data: {} });
    // Assess: the worker stays warm after its run, a child of this process (the platform runs in it)
    expect(run.body.data.status).toBe('completed');
    const workers = childrenWith(process.pid, '/var/task');
    expect(workers.length).toBeGreaterThan(0);
    const mode = cpuShareMode();
    for (const worker of workers) expect(cpuShareOf(worker)).toEqual(mode.kind === 'cgroup' ? groupShare('scripts') : { autogroupNice: 0 });
  }, 120_000);
});

describe("hardening: another account's download cache", () => {
  it('cannot read a package another account installed by naming its integrity in a lockfile: the install fails, nothing is created', async () => {
    // Prepare: the owner installs the package from a registry only it uses
    const set = await api.as(owner.apiKey).post(sdk('setPackageRegistry'), { ecosystem: 'npm', url: registry.url });
    expect(set.status, set.text).toBe(200);
    const code = `import pkg from '${privatePackage.name}';\nexport async function handler() { return pkg.secret; }\n`;
    const installed = await api
      .as(owner.apiKey)
      .post(sdk('createScript'), { name: 'private-dependency', code, dependencies: { [privatePackage.name]: privatePackage.version } });
    expect(installed.status, installed.text).toBe(200);
    const before = (await api.as(thief.apiKey).post(sdk('listScripts'), {})).body.data;
    // Act: the thief's lockfile points at the public registry (its own), with the owner's tarball's integrity
    const lockfile = JSON.stringify({
      name: 'script-dependencies',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'script-dependencies', version: '1.0.0', dependencies: { [privatePackage.name]: privatePackage.version } },
        [`node_modules/${privatePackage.name}`]: {
          version: privatePackage.version,
          resolved: `https://registry.npmjs.org/${privatePackage.name}/-/${privatePackage.name}-${privatePackage.version}.tgz`,
          integrity: registry.integrity(privatePackage),
        },
      },
    });
    const stolen = await api
      .as(thief.apiKey)
      .post(sdk('createScript'), { name: 'steal', code, dependencies: { [privatePackage.name]: privatePackage.version }, lockfile });
    // Assess
    expect(stolen.status, stolen.text).toBe(400);
    expect(stolen.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'dependencies' } });
    expect((await api.as(thief.apiKey).post(sdk('listScripts'), {})).body.data).toEqual(before);
  }, 300_000);
});
