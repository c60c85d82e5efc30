// Builds that must fail, each with its reason and logs, leaving the previous good build serving; and the
// `building` answer at the wait bound with logs readable while the build runs.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { runningWith } from '../support/processes.js';
import {
  type FixtureRepo,
  buildScript,
  buildToEnd,
  fetchPage,
  givenRepo,
  givenSiteRepo,
  givenTemplate,
  manifest,
  templatesPath,
} from '../support/templates.js';

// Builds answer `building` almost at once here, so every test also goes through the read of a running build.
process.env.TEMPLATE_BUILD_WAIT_SECONDS = '1';
process.env.TEMPLATE_BUILD_TIMEOUT_SECONDS = '20';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

const byId = (templateId: string, suffix = '') => `${templatesPath}/${templateId}${suffix}`;
const site = { 'build.mjs': buildScript };

/** A template whose first version built fine and serves `v1`, and a repository to commit the next one to. */
async function givenServing(): Promise<{ templateId: string; repo: FixtureRepo; sub: string }> {
  const { repo, gitHash } = givenSiteRepo();
  const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
  const built = await buildToEnd(api, owner, templateId);
  expect(built.body.data.buildStatus).toBe('success');
  return { templateId, repo, sub: new URL(built.body.data.cdnUrl).hostname.split('.')[0]! };
}

/** Commits `files` as version 1.1.0 of the template and builds it to its end. */
async function buildNext(templateId: string, repo: FixtureRepo, files: Record<string, string | { symlink: string } | null>) {
  const gitHash = repo.commit(files);
  await api.as(owner.apiKey).post(byId(templateId, '/versions'), { version: '1.1.0', gitHash });
  return buildToEnd(api, owner, templateId, '1.1.0');
}

describe("template builds: the repository's code runs in the sandbox", () => {
  it("sees none of the platform's files: a build reading a host file outside its own directory finds nothing", async () => {
    // Prepare
    const { templateId, repo, sub } = await givenServing();
    const secret = mkdtempSync(join(tmpdir(), 'host-secret-'));
    writeFileSync(join(secret, 'key.txt'), 'host secret');
    const peek = `mkdir -p out && (cat ${join(secret, 'key.txt')} 2>/dev/null || echo hidden) > out/index.html`;
    // Act
    const built = await buildNext(templateId, repo, { 'template.json': JSON.stringify(manifest({}, { buildCommand: peek, outputDirectory: 'out' })) });
    const page = await fetchPage(api.baseUrl, sub, 'path');
    // Assess
    expect(built.body.data.buildStatus).toBe('success');
    expect(page.text.trim()).toBe('hidden');
  });
});

describe('template builds: failures keep the previous good build serving', () => {
  const outside = mkdtempSync(join(tmpdir(), 'outside-checkout-'));
  writeFileSync(join(outside, 'template.json'), JSON.stringify(manifest()));
  writeFileSync(join(outside, 'index.html'), 'secret from outside');

  it.each([
    ['no template.json', { 'template.json': null }, /template\.json at template\.json does not exist/],
    ['template.json that is not JSON', { 'template.json': '{"build": ' }, /template\.json is not valid JSON/],
    [
      'template.json without a build command',
      { 'template.json': JSON.stringify({ build: { outputDirectory: 'dist' } }) },
      /template\.json build\.buildCommand/,
    ],
    [
      'customization with an invalid default',
      { 'template.json': JSON.stringify(manifest({ customization: [{ key: 'a', type: 'number', min: 5, default: 1 }] })) },
      /default of customization a: must be at least 5/,
    ],
    [
      'a build command that fails',
      { 'template.json': JSON.stringify(manifest({}, { buildCommand: 'echo about to fail && exit 3' })) },
      /the build command failed/,
    ],
    [
      'an empty output directory',
      { 'template.json': JSON.stringify(manifest({}, { buildCommand: 'mkdir -p out', outputDirectory: 'out' })) },
      /outputDirectory out is empty/,
    ],
    [
      'an output directory that is not there',
      { 'template.json': JSON.stringify(manifest({}, { buildCommand: 'true', outputDirectory: 'nowhere' })) },
      /outputDirectory nowhere does not exist/,
    ],
    [
      'template.json symlinked outside the checkout',
      { 'template.json': { symlink: join(outside, 'template.json') } },
      /template\.json at template\.json leads outside the repository checkout/,
    ],
    [
      'an output directory symlinked outside',
      { 'template.json': JSON.stringify(manifest({}, { buildCommand: 'true', outputDirectory: 'site' })), site: { symlink: outside } },
      /outputDirectory site leads outside/,
    ],
    [
      'an output file symlinked outside',
      { 'template.json': JSON.stringify(manifest({}, { buildCommand: `mkdir -p dist && ln -sf ${join(outside, 'index.html')} dist/index.html` })) },
      /output file index\.html: its symlink .* leads outside/,
    ],
    [
      'a path in template.json escaping with ..',
      { 'template.json': JSON.stringify(manifest({}, { outputDirectory: '../dist' })) },
      /template\.json build\.outputDirectory: must be a relative path inside the repository/,
    ],
  ])('records %s as a failed build with the reason and its logs', async (_label, files, reason) => {
    // Prepare
    const { templateId, repo, sub } = await givenServing();
    // Act
    const failed = await buildNext(templateId, repo, { ...site, ...files });
    const template = (await api.as(owner.apiKey).get(byId(templateId))).body.data;
    const page = await fetchPage(api.baseUrl, sub, 'host');
    // Assess
    expect(failed.body.data).toMatchObject({ buildStatus: 'failed', version: '1.1.0', cdnUrl: null, buildOutput: null });
    expect(failed.body.data.reason).toMatch(reason);
    expect(failed.body.data.logs).toEqual(expect.arrayContaining([expect.stringMatching(/^fetching file:/), `build failed: ${failed.body.data.reason}`]));
    expect(template).toMatchObject({ buildStatus: 'failed', builtVersion: '1.0.0' });
    expect(page.status).toBe(200);
    expect(page.facts?.label).toBe('v1');
  });

  it('records a templatePath that leaves the checkout through a symlink as failed', async () => {
    // Prepare
    const repo = givenRepo();
    const gitHash = repo.commit({ ...site, 'template.json': JSON.stringify(manifest()), sub: { symlink: outside } });
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash, templatePath: 'sub' });
    // Act
    const failed = await buildToEnd(api, owner, templateId);
    // Assess
    expect(failed.body.data).toMatchObject({ buildStatus: 'failed', reason: 'templatePath sub leads outside the repository checkout' });
  });

  it('records a repository that does not exist and a commit that is not in it as failed', async () => {
    // Prepare
    const { repo } = givenSiteRepo();
    const missingRepo = await givenTemplate(api, owner, { repository: `file://${join(tmpdir(), 'no-such-repository')}`, gitHash: 'a'.repeat(40) });
    const missingCommit = await givenTemplate(api, owner, { repository: repo.url, gitHash: 'b'.repeat(40) });
    // Act
    const [noRepo, noCommit] = await Promise.all([buildToEnd(api, owner, missingRepo), buildToEnd(api, owner, missingCommit)]);
    // Assess
    expect(noRepo.body.data).toMatchObject({ buildStatus: 'failed', reason: expect.stringMatching(/could not be fetched/) });
    expect(noCommit.body.data).toMatchObject({ buildStatus: 'failed', reason: `commit ${'b'.repeat(40)} is not in the repository ${repo.url}` });
    expect(noCommit.body.data.logs.length).toBeGreaterThan(1);
  });

  it('answers `building` at the wait bound with the logs so far, stops a build past its limit with its whole process tree, and keeps serving', async () => {
    // Prepare
    const { templateId, repo, sub } = await givenServing();
    // A sleep no other process runs: its duration is the marker.
    const marker = `300.${Date.now()}`;
    const stuck = `echo started-slow-build; sleep ${marker} & wait`;
    const gitHash = repo.commit({ ...site, 'template.json': JSON.stringify(manifest({}, { buildCommand: stuck })) });
    await api.as(owner.apiKey).post(byId(templateId, '/versions'), { version: '1.1.0', gitHash });
    // Act
    const started = await api.as(owner.apiKey).post(byId(templateId, '/build'), { version: '1.1.0' });
    let running = started;
    while (!running.body.data.logs.includes('started-slow-build'))
      running = await api.as(owner.apiKey).get(byId(templateId, `/builds/${started.body.data.buildId}?wait=1`));
    const backgroundWhileRunning = runningWith(['sleep', marker]);
    let final = running;
    while (final.body.data.buildStatus === 'building') final = await api.as(owner.apiKey).get(byId(templateId, `/builds/${started.body.data.buildId}?wait=5`));
    const page = await fetchPage(api.baseUrl, sub, 'path');
    // Assess
    expect(started.body.data).toMatchObject({ buildStatus: 'building', buildId: expect.stringMatching(/^bld_/), cdnUrl: null });
    expect(running.body.data.buildStatus).toBe('building');
    expect(final.body.data).toMatchObject({ buildStatus: 'failed', reason: expect.stringMatching(/ran past its limit of 20 s/) });
    expect(backgroundWhileRunning).toHaveLength(1);
    await vi.waitFor(() => expect(runningWith(['sleep', marker])).toEqual([]), { timeout: 10_000 });
    expect(page.facts?.label).toBe('v1');
  }, 120_000); // the build runs into its 20 s limit on purpose

  it('hides builds from other users', async () => {
    // Prepare
    const { templateId } = await givenServing();
    const build = (await api.as(owner.apiKey).get(byId(templateId))).body.data.buildId;
    const stranger = await api.givenUser();
    // Act
    const read = await api.as(stranger.apiKey).get(byId(templateId, `/builds/${build}`));
    // Assess
    expect(read.status).toBe(404);
    expect(existsSync(outside)).toBe(true);
  });
});

describe('templates: create input', () => {
  it.each([
    ['an ssh repository', { repository: 'git@example.com:a/b.git' }, 'repository'],
    ['an http repository', { repository: 'http://example.com/a.git' }, 'repository'],
    ['credentials in the URL', { repository: 'https://user:pw@example.com/a.git' }, 'repository'],
    ['a short commit id', { gitHash: 'abc1234' }, 'gitHash'],
    ['a branch name', { gitHash: 'main' }, 'gitHash'],
    ['a templatePath with ..', { templatePath: '../elsewhere' }, 'templatePath'],
    ['an absolute templatePath', { templatePath: '/etc' }, 'templatePath'],
    ['a version that is not semver', { version: '1.0' }, 'version'],
    ['no name', { name: '' }, 'name'],
    ['an unknown field', { owner: 'me' }, 'owner'],
  ])('refuses %s with VALIDATION_ERROR, creating nothing', async (_label, change, field) => {
    // Prepare
    const before = (await api.as(owner.apiKey).get(`${templatesPath}?limit=100`)).body.data.total;
    // Act
    const refused = await api
      .as(owner.apiKey)
      .post(templatesPath, { repository: 'https://example.com/site.git', gitHash: 'c'.repeat(40), name: 'x', ...change });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect((await api.as(owner.apiKey).get(`${templatesPath}?limit=100`)).body.data.total).toBe(before);
  });
});
