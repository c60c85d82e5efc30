// Attacks on template builds and the package installs beside them, each with evidence: the build command has no
// network (its page says so), `npm ci` and script installs reach only the configured registry through the egress
// guard (another loopback server counts zero requests), builds run at the lowest priority in a size-capped scratch
// space and queue under the per-account and global limits, file:// repositories need the operator's consent, and a deleted template's page
// is gone.
import { existsSync, readdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envNames } from '../../functions/platform/env-names.js';
import { templatesArea } from '../../functions/app/templates/wiring.js';
import { type NpmPackage, type NpmRegistry, startNpmRegistry } from '../support/npm-registry.js';
import { type ApiResponse, type TestApi, type TestUser, reconfigurePlatform, startTestPlatform } from '../support/platform.js';
import { sdk } from '../support/scripts.js';
import { buildToEnd, fetchPage, givenBuiltTemplate, givenRepo, givenSiteRepo, givenTemplate, manifest, templatesPath } from '../support/templates.js';
import { printAttackSummary } from '../support/attack-summary.js';

printAttackSummary('template builds (network, egress, priority, queues, disk, file://, deletion)');

process.env.TEMPLATE_BUILD_WAIT_SECONDS = '1';

let api: TestApi;
let owner: TestUser;
let registry: NpmRegistry;
/** A loopback server nobody configured, serving the same package: a request reaching it is an escape. */
let bystander: NpmRegistry;
const dependency: NpmPackage = {
  name: 'egress-probe-dep',
  version: '1.0.0',
  files: {
    'package.json': JSON.stringify({ name: 'egress-probe-dep', version: '1.0.0', type: 'module', main: 'index.js' }),
    'index.js': "export const word = 'from-the-registry';\n",
  },
};

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
  registry = await startNpmRegistry([dependency]);
  bystander = await startNpmRegistry([dependency]);
  reconfigurePlatform({ TEMPLATE_NPM_REGISTRY: registry.url });
});
afterAll(async () => {
  reconfigurePlatform({ TEMPLATE_NPM_REGISTRY: undefined });
  await Promise.all([registry.stop(), bystander.stop()]);
  await api.stop();
});

/** The JSON a build script left in its page. */
async function factsOf(templateId: string): Promise<Record<string, unknown>> {
  const template = (await api.as(owner.apiKey).get(`${templatesPath}/${templateId}`)).body.data;
  const page = await fetchPage(api.baseUrl, new URL(template.cdnUrl).hostname.split('.')[0]!, 'path');
  return page.facts as unknown as Record<string, unknown>;
}

const pageOf = (script: string) => `import { mkdirSync, writeFileSync } from 'node:fs';
${script}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/index.html', '<!doctype html><script type="application/json" id="facts">' + JSON.stringify(facts) + '</script>');
`;

describe('template builds: the build command has no network', () => {
  it("cannot connect to the platform API, DynamoDB Local or this machine's own address, and runs at the lowest priority", async () => {
    // Prepare
    const own = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    const targets = {
      api: ['127.0.0.1', Number(new URL(api.baseUrl).port)],
      dynamodb: ['127.0.0.1', Number(new URL(process.env[envNames.dynamoEndpoint]!).port)],
      ...(own && { ownAddress: [own, Number(new URL(api.baseUrl).port)] }),
    };
    const script = pageOf(`import { connect } from 'node:net';
import { getPriority } from 'node:os';
const probe = ([host, port]) => new Promise((done) => {
  const socket = connect({ host, port });
  socket.once('connect', () => { socket.destroy(); done('connected'); });
  socket.once('error', (error) => done(error.code));
});
const facts = { priority: getPriority() };
for (const [name, target] of Object.entries(JSON.parse(process.env.PROBE_TARGETS))) facts[name] = await probe(target);`);
    const repo = givenRepo();
    const gitHash = repo.commit({
      'template.json': JSON.stringify(manifest({}, { environmentVariables: { PROBE_TARGETS: JSON.stringify(targets) } })),
      'build.mjs': script,
    });
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    // Act
    const built = await buildToEnd(api, owner, templateId);
    // Assess
    expect(built.body.data.buildStatus).toBe('success');
    const facts = await factsOf(templateId);
    for (const name of Object.keys(targets)) expect(facts[name], name).not.toBe('connected');
    expect(facts.api).toMatch(/^E[A-Z]+$/);
    expect(facts.priority).toBe(19);
  }, 120_000);
});

const lockfile = (resolved: string) =>
  JSON.stringify({
    name: 'site',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'site', version: '1.0.0', dependencies: { [dependency.name]: dependency.version } },
      [`node_modules/${dependency.name}`]: { version: dependency.version, resolved, integrity: registry.integrity(dependency) },
    },
  });

/** A site whose build imports the dependency `npm ci` installs from `resolved`. */
async function givenSiteWithDependency(resolved: string): Promise<string> {
  const repo = givenRepo();
  const gitHash = repo.commit({
    'template.json': JSON.stringify(manifest()),
    'package.json': JSON.stringify({ name: 'site', version: '1.0.0', type: 'module', dependencies: { [dependency.name]: dependency.version } }),
    'package-lock.json': lockfile(resolved),
    'build.mjs': pageOf(`import { word } from '${dependency.name}';\nconst facts = { word };`),
  });
  return givenTemplate(api, owner, { repository: repo.url, gitHash });
}

describe('template builds: npm ci reaches only the configured registry, through the egress guard', () => {
  it("installs from the operator's registry on loopback", async () => {
    // Prepare
    const templateId = await givenSiteWithDependency(registry.tarballUrl(dependency));
    // Act
    const built = await buildToEnd(api, owner, templateId);
    // Assess
    expect(built.body.data.buildStatus, built.text).toBe('success');
    expect((await factsOf(templateId)).word).toBe('from-the-registry');
  }, 120_000);

  it('refuses a lockfile fetching from another loopback server: the build fails, saying why, and the server sees no request', async () => {
    // Prepare
    const templateId = await givenSiteWithDependency(bystander.tarballUrl(dependency));
    // Act
    const built = await buildToEnd(api, owner, templateId);
    // Assess
    expect(built.body.data).toMatchObject({ buildStatus: 'failed', reason: 'installing dependencies (npm ci) failed' });
    expect(built.body.data.logs.join('\n')).toMatch(/egress guard: outbound call to 127\.0\.0\.1 refused/);
    expect(bystander.requests).toBe(0);
  }, 120_000);
});

describe('script package installs: through the same egress guard', () => {
  it("installs from the account's registry on loopback, and refuses one whose tarballs point at another loopback server, which sees no request", async () => {
    // Prepare
    const hostile = await startNpmRegistry([dependency], { tarballBase: bystander.url });
    const code = `import { word } from '${dependency.name}';\nexport async function handler() { return { word }; }\n`;
    const post = (operation: string, body: unknown) => api.as(owner.apiKey).post(sdk(operation), body);
    try {
      // Act
      await post('setPackageRegistry', { ecosystem: 'npm', url: registry.url });
      const installed = await post('createScript', {
        name: 'through the guard',
        runtime: 'nodejs18',
        code,
        dependencies: { [dependency.name]: dependency.version },
      });
      await post('setPackageRegistry', { ecosystem: 'npm', url: hostile.url });
      const refused = await post('createScript', {
        name: 'past the guard',
        runtime: 'nodejs18',
        code,
        dependencies: { [dependency.name]: dependency.version },
      });
      // Assess
      expect(installed.status, installed.text).toBe(200);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { package: dependency.name } });
      expect(hostile.requests).toBeGreaterThan(0);
      expect(bystander.requests).toBe(0);
    } finally {
      await post('clearPackageRegistry', { ecosystem: 'npm' });
      await hostile.stop();
    }
  }, 120_000);
});

describe('template builds: limits', () => {
  /** Starts a build of each template at once and reads each to its end. */
  async function buildAllAtOnce(builds: Array<{ who: TestUser; templateId: string }>): Promise<ApiResponse[]> {
    const started = await Promise.all(builds.map(({ who, templateId }) => api.as(who.apiKey).post(`${templatesPath}/${templateId}/build`, {})));
    return Promise.all(
      started.map(async (response, index) => {
        const { who, templateId } = builds[index]!;
        for (let read = response; ; ) {
          if (read.status !== 200 || read.body.data.buildStatus !== 'building') return read;
          read = await api.as(who.apiKey).get(`${templatesPath}/${templateId}/builds/${response.body.data.buildId}?wait=5`);
        }
      }),
    );
  }

  // The build spins half a second and records when it ran: with the limit, no two runs overlap.
  const timedSite = pageOf(`const started = Date.now();
while (Date.now() - started < 500);
const facts = { started, ended: Date.now() };`);

  it.each([
    { limit: 'per account', perAccount: '1', max: '4', accounts: 1 },
    { limit: 'global', perAccount: '4', max: '1', accounts: 3 },
  ])(
    "queues a tenant's concurrent builds under the $limit limit: all succeed, one after another",
    async ({ perAccount, max, accounts }) => {
      // Prepare
      reconfigurePlatform({ TEMPLATE_BUILDS_PER_ACCOUNT: perAccount, TEMPLATE_BUILDS_MAX: max });
      const users = [owner, ...(await Promise.all(Array.from({ length: accounts - 1 }, () => api.givenUser())))];
      const builds = await Promise.all(
        [0, 1, 2].map(async (index) => {
          const repo = givenRepo();
          const gitHash = repo.commit({ 'template.json': JSON.stringify(manifest()), 'build.mjs': timedSite });
          const who = users[index % users.length]!;
          return { who, templateId: await givenTemplate(api, who, { repository: repo.url, gitHash }) };
        }),
      );
      try {
        // Act
        const ended = await buildAllAtOnce(builds);
        // Assess
        expect(ended.map((read) => read.body.data.buildStatus)).toEqual(['success', 'success', 'success']);
        const runs = await Promise.all(
          builds.map(async ({ who, templateId }) => {
            const template = (await api.as(who.apiKey).get(`${templatesPath}/${templateId}`)).body.data;
            return (await fetchPage(api.baseUrl, new URL(template.cdnUrl).hostname.split('.')[0]!, 'path')).facts as unknown as {
              started: number;
              ended: number;
            };
          }),
        );
        runs.sort((a, b) => a.started - b.started);
        for (let index = 1; index < runs.length; index++) expect(runs[index]!.started).toBeGreaterThanOrEqual(runs[index - 1]!.ended);
        expect(ended.some((read) => read.body.data.logs.some((line: string) => line.startsWith('queued:')))).toBe(true);
      } finally {
        reconfigurePlatform({ TEMPLATE_BUILDS_PER_ACCOUNT: undefined, TEMPLATE_BUILDS_MAX: undefined });
      }
    },
    180_000,
  );
});

describe('template builds: a size-capped scratch space', () => {
  it('fails a build that writes past its scratch space cleanly, saying so, leaving nothing behind on the data disk', async () => {
    // Prepare
    reconfigurePlatform({ TEMPLATE_BUILD_SCRATCH_MB: '16' });
    const repo = givenRepo();
    const gitHash = repo.commit({
      'template.json': JSON.stringify(manifest()),
      'build.mjs': pageOf("writeFileSync('filler.bin', Buffer.alloc(40 * 1024 * 1024));\nconst facts = {};"),
    });
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    const buildsDir = join(process.env.DATA_DIR!, 'template-builds');
    try {
      // Act
      const built = await buildToEnd(api, owner, templateId);
      // Assess
      expect(built.body.data).toMatchObject({ buildStatus: 'failed', reason: 'the build wrote past its 16 MB of scratch space' });
      expect(built.body.data.logs.join('\n')).toMatch(/ENOSPC/);
      expect(readdirSync(buildsDir).filter((entry) => entry.startsWith(built.body.data.buildId))).toEqual([]);
    } finally {
      reconfigurePlatform({ TEMPLATE_BUILD_SCRATCH_MB: undefined });
    }
  }, 120_000);
});

describe('template builds: file:// repositories need the operator', () => {
  it('refuses a file:// repository unless TEMPLATE_FILE_REPOSITORIES=true, creating nothing, and builds none made before', async () => {
    // Prepare
    const { repo, gitHash } = givenSiteRepo();
    const madeBefore = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    const before = (await api.as(owner.apiKey).get(templatesPath)).body.data.templates.length;
    reconfigurePlatform({ TEMPLATE_FILE_REPOSITORIES: 'false' });
    try {
      // Act
      const created = await api.as(owner.apiKey).post(templatesPath, { name: 'Probe', description: 'probe', repository: repo.url, gitHash });
      const built = await buildToEnd(api, owner, madeBefore);
      // Assess
      expect(created.status).toBe(400);
      expect(created.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'repository' } });
      expect(created.body.error.message).toContain('TEMPLATE_FILE_REPOSITORIES');
      expect((await api.as(owner.apiKey).get(templatesPath)).body.data.templates.length).toBe(before);
      expect(built.body.data.buildStatus).toBe('failed');
    } finally {
      reconfigurePlatform({ TEMPLATE_FILE_REPOSITORIES: 'true' });
    }
  }, 120_000);
});

describe('template deletion', () => {
  it("stops serving the template's page: both URL forms answer 404 and its files are gone", async () => {
    // Prepare
    const { templateId } = await givenBuiltTemplate(api, owner);
    const template = (await api.as(owner.apiKey).get(`${templatesPath}/${templateId}`)).body.data;
    const sub = new URL(template.cdnUrl).hostname.split('.')[0]!;
    const link = join(process.env.DATA_DIR!, 'pages', sub);
    const servedBefore = await fetchPage(api.baseUrl, sub, 'path');
    // Act
    const deleted = await api.as(owner.apiKey).delete(`${templatesPath}/${templateId}`);
    // Assess
    expect(servedBefore.status).toBe(200);
    expect(deleted.status).toBe(200);
    expect((await fetchPage(api.baseUrl, sub, 'path')).status).toBe(404);
    expect((await fetchPage(api.baseUrl, sub, 'host')).status).toBe(404);
    expect(existsSync(link)).toBe(false);
  }, 120_000);

  it('publishes nothing for a template deleted while its build waited: the build fails saying so and the page stays 404', async () => {
    // Prepare: a build of another template holds the account's one build slot, so this one waits in the queue.
    reconfigurePlatform({ TEMPLATE_BUILDS_PER_ACCOUNT: '1' });
    const holder = givenRepo();
    const holderHash = holder.commit({
      'template.json': JSON.stringify(manifest()),
      'build.mjs': pageOf('const started = Date.now();\nwhile (Date.now() - started < 3000);\nconst facts = {};'),
    });
    const holderId = await givenTemplate(api, owner, { repository: holder.url, gitHash: holderHash });
    const { repo, gitHash } = givenSiteRepo();
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    try {
      await api.as(owner.apiKey).post(`${templatesPath}/${holderId}/build`, {});
      const started = await api.as(owner.apiKey).post(`${templatesPath}/${templateId}/build`, {});
      expect(started.body.data.logs.some((line: string) => line.startsWith('queued:'))).toBe(true);
      // Act
      const deleted = await api.as(owner.apiKey).delete(`${templatesPath}/${templateId}`);
      // The template's routes answer 404 now: the build's end is read from its record.
      let ended = await templatesArea().builds.awaitEnd(started.body.data.buildId, 60_000);
      while (ended.status === 'building') ended = await templatesArea().builds.awaitEnd(started.body.data.buildId, 60_000);
      // Assess
      expect(deleted.status).toBe(200);
      expect(ended).toMatchObject({ status: 'failed', reason: expect.stringContaining('was removed while it was building') });
      expect((await fetchPage(api.baseUrl, ended.subdomain, 'path')).status).toBe(404);
    } finally {
      reconfigurePlatform({ TEMPLATE_BUILDS_PER_ACCOUNT: undefined });
    }
  }, 120_000);
});
