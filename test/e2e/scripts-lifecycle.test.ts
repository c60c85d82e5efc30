// A script's life over HTTP: create, versions, deploy and rollback, syntax errors, update, publish and unpublish.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.js';
import { givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { execute, getScript, givenDeployed, givenScript, nodeEcho, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

const versions = async (scriptId: string) => (await api.as(owner.apiKey).post(sdk('listVersions'), { scriptId })).body.data;
const outputOf = async (scriptId: string) => (await execute(api, owner, scriptId)).body.data.output;

describe('scripts: creating', () => {
  it('creates a draft with version 1.0.0, an execute key shown once, and the REST fields', async () => {
    // Prepare
    const body = { name: 'Greeter', description: 'says hello', code: nodeEcho('v1'), tags: ['hello'], category: 'utility' };
    // Act
    const created = await api.as(owner.apiKey).post(rest, body);
    const listed = await api.as(owner.apiKey).get(rest);
    const restVersions = await api.as(owner.apiKey).get(`${rest}/${created.body.data.id}/versions`);
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^scr_/),
      name: 'Greeter',
      runtime: 'nodejs18',
      status: 'draft',
      deploymentStatus: 'pending',
      createdAt: expect.any(String),
      apiKey: expect.stringMatching(/^amp_/),
    });
    expect(listed.body.data.scripts[0]).toEqual({
      id: created.body.data.id,
      name: 'Greeter',
      runtime: 'nodejs18',
      status: 'draft',
      deploymentStatus: 'pending',
      activeVersion: null,
      activeVersionNumber: null,
      createdAt: created.body.data.createdAt,
      lastExecutedAt: null,
    });
    expect(restVersions.body.data.versions).toEqual([
      { versionId: expect.stringMatching(/^ver_/), version: '1.0.0', versionNumber: 1, changelog: 'initial version', createdAt: created.body.data.createdAt },
    ]);
    expect(await getScript(api, owner, created.body.data.id)).toMatchObject({
      timeout: 30,
      memory: 128,
      activeVersion: null,
      isPublished: false,
      isPrivate: false,
      deploymentStatus: 'pending',
    });
  });

  it('answers createScript with the SDK record, its installation and key', async () => {
    // Prepare
    const body = {
      name: 'Sdk script',
      description: 'sdk',
      runtime: 'python3.11',
      code: 'def handler(event, context):\n    return 1\n',
      config: { timeout: 10, memory: 256 },
    };
    // Act
    const created = await api.as(owner.apiKey).post(sdk('createScript'), body);
    // Assess
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^scr_/),
      name: 'Sdk script',
      description: 'sdk',
      runtime: 'python3.11',
      timeout: 10,
      memory: 256,
      activeVersion: null,
      activeSemver: null,
      isPublished: false,
      isPrivate: false,
      status: 'draft',
      deploymentStatus: 'pending',
      apiKey: expect.stringMatching(/^amp_/),
      installationId: expect.stringMatching(/^sin_/),
      createdAt: expect.any(String),
    });
  });

  it('refuses config outside the interface ranges with the field and value, creating nothing', async () => {
    // Prepare
    const before = (await api.as(owner.apiKey).post(sdk('listScripts'), {})).body.data.count;
    const bad = [
      { config: { timeout: 301 }, field: 'config.timeout', value: 301 },
      { config: { timeout: 0 }, field: 'config.timeout', value: 0 },
      { config: { memory: 127 }, field: 'config.memory', value: 127 },
      { config: { memory: 3009 }, field: 'config.memory', value: 3009 },
      { config: { maxCostPerExecution: -1 }, field: 'config.maxCostPerExecution', value: -1 },
      { config: { maxExecutionsPerDay: 0 }, field: 'config.maxExecutionsPerDay', value: 0 },
      { config: { allowedResources: 'all' }, field: 'config.allowedResources', value: 'all' },
    ];
    // Act
    const answers = await Promise.all(bad.map(({ config }) => api.as(owner.apiKey).post(rest, { name: 'x', code: nodeEcho('x'), config })));
    // Assess
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: bad[i]!.field, value: bad[i]!.value } });
    });
    expect((await api.as(owner.apiKey).post(sdk('listScripts'), {})).body.data.count).toBe(before);
  });
});

describe('scripts: versions', () => {
  it('adds REST versions only above the latest semver and SDK versions as the next integer and patch', async () => {
    // Prepare
    const script = await givenScript(api, owner);
    // Act
    const minor = await api.as(owner.apiKey).post(`${rest}/${script.id}/versions`, { code: nodeEcho('v2'), version: '1.1.0', changelog: 'a feature' });
    const lower = await api.as(owner.apiKey).post(`${rest}/${script.id}/versions`, { code: nodeEcho('v3'), version: '1.0.5' });
    const preRelease = await api.as(owner.apiKey).post(`${rest}/${script.id}/versions`, { code: nodeEcho('v3'), version: '1.1.1-beta.1' });
    const next = await api.as(owner.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: nodeEcho('v3'), commitMessage: 'a fix' });
    const listedRest = await api.as(owner.apiKey).get(`${rest}/${script.id}/versions`);
    // Assess
    expect(minor.status).toBe(201);
    expect(minor.body.data).toEqual({
      versionId: expect.stringMatching(/^ver_/),
      version: '1.1.0',
      versionNumber: 2,
      changelog: 'a feature',
      createdAt: expect.any(String),
    });
    expect(lower.status).toBe(400);
    expect(lower.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'version', value: '1.0.5' } });
    expect(next.body.data).toEqual({
      id: expect.stringMatching(/^ver_/),
      scriptId: script.id,
      version: 4,
      semver: '1.1.1',
      isActive: false,
      commitMessage: 'a fix',
      codeHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      createdAt: expect.any(String),
      deployedAt: null,
    });
    expect(preRelease.status).toBe(201);
    expect(listedRest.body.data.versions.map((version: { version: string }) => version.version)).toEqual(['1.1.1', '1.1.1-beta.1', '1.1.0', '1.0.0']);
  });

  it('deploys one version at a time and rolls back to an older one, restoring its output', async () => {
    // Prepare
    const script = await givenScript(api, owner, { code: nodeEcho('v1') });
    const first = (await versions(script.id)).versions[0];
    await api.as(owner.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: nodeEcho('v2') });
    // Act
    const deployed = await api.as(owner.apiKey).post(sdk('deployScript'), { scriptId: script.id });
    const afterDeploy = await outputOf(script.id);
    const rolledBack = await api.as(owner.apiKey).post(`${rest}/${script.id}/deploy`, { versionId: first.id });
    const afterRollback = await outputOf(script.id);
    // Assess
    expect(deployed.body.data).toEqual({
      scriptId: script.id,
      version: 2,
      semver: '1.0.1',
      serverlessFunctionName: `platform-script-${script.id}`,
      serverlessFunctionArn: expect.stringContaining(`function:platform-script-${script.id}`),
      deployedAt: expect.any(String),
    });
    expect(afterDeploy.label).toBe('v2');
    expect(rolledBack.body.data).toEqual({
      deploymentId: expect.stringMatching(/^dep_/),
      versionId: first.id,
      version: '1.0.0',
      versionNumber: 1,
      status: 'deployed',
      deployedAt: expect.any(String),
    });
    expect(afterRollback.label).toBe('v1');
    expect((await versions(script.id)).versions.map((version: { version: number; isActive: boolean }) => [version.version, version.isActive])).toEqual([
      [2, false],
      [1, true],
    ]);
    expect(await getScript(api, owner, script.id)).toMatchObject({ activeVersion: 1, deploymentStatus: 'deployed' });
  });

  it('deploys the latest version over REST when no versionId is given', async () => {
    // Prepare
    const script = await givenScript(api, owner, { code: nodeEcho('v1') });
    const latest = await api.as(owner.apiKey).post(`${rest}/${script.id}/versions`, { code: nodeEcho('v2'), version: '1.1.0' });
    // Act
    const deployed = await api.as(owner.apiKey).post(`${rest}/${script.id}/deploy`, {});
    // Assess
    expect(deployed.status).toBe(200);
    expect(deployed.body.data).toEqual({
      deploymentId: expect.stringMatching(/^dep_/),
      versionId: latest.body.data.versionId,
      version: '1.1.0',
      versionNumber: 2,
      status: 'deployed',
      deployedAt: expect.any(String),
    });
    expect(await outputOf(script.id)).toMatchObject({ label: 'v2' });
  });

  it('takes code past what one database item holds (2 MB) and runs it, while a body past 6 MB is refused with 413', async () => {
    // Prepare
    const large = `${nodeEcho('large')}\n// ${'x'.repeat(2 * 1024 * 1024)}\n`;
    const script = await givenScript(api, owner);
    // Act
    const created = await api.as(owner.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: large });
    const deployed = await api.as(owner.apiKey).post(sdk('deployScript'), { scriptId: script.id });
    const tooLarge = await api.as(owner.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: `${large}${'y'.repeat(4 * 1024 * 1024)}` });
    // Assess
    expect(created.status).toBe(200);
    expect(deployed.status).toBe(200);
    expect(await outputOf(script.id)).toMatchObject({ label: 'large' });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
    expect((await versions(script.id)).count).toBe(2);
  });
});

describe('scripts: one vocabulary', () => {
  it('answers every SDK script operation with its record as `data`, never an envelope inside the envelope', async () => {
    // Prepare
    const as = api.as(owner.apiKey);
    const operations = routes
      .filter((route) => route.method === 'POST' && /^\/api\/sdk\/v1\/scripts\/[A-Za-z]+$/.test(route.path))
      .map((route) => route.path.split('/').pop()!);
    const scriptId = (await givenDeployed(api, owner, { description: 'd', tags: ['t'] })).id;
    const flow = await givenTimeFlow(api, owner, scriptId);
    const bodies: Record<string, () => Record<string, unknown>> = {
      createScript: () => ({ name: `vocabulary-other-${Date.now().toString(36)}`, code: nodeEcho('x') }),
      createVersion: () => ({ scriptId, code: nodeEcho('v2') }),
      listVersions: () => ({ scriptId }),
      deployScript: () => ({ scriptId }),
      executeScript: () => ({ scriptId, data: {} }),
      getScript: () => ({ scriptId }),
      listScripts: () => ({}),
      getExecutions: () => ({ scriptId }),
      getExecution: () => ({ executionId: answers.executeScript!.body.data.executionId }),
      publishScript: () => ({ scriptId }),
      listMarketplaceScripts: () => ({}),
      getMetrics: () => ({ scriptId }),
      getFlowScript: () => ({ flowId: flow.id }),
      modifyFlowScript: () => ({ flowId: flow.id, newCode: nodeEcho('v3') }),
      lintScript: () => ({ code: nodeEcho('lint') }),
      createWebhook: () => ({ scriptId, name: 'hook' }),
      createSchedule: () => ({ scriptId, name: 'nightly', cronExpression: '0 3 * * *' }),
      setPackageRegistry: () => ({ ecosystem: 'npm', url: 'https://registry.npmjs.org/' }),
      listPackageRegistries: () => ({}),
      clearPackageRegistry: () => ({ ecosystem: 'npm' }),
      unpublishScript: () => ({ scriptId }),
      deleteScript: () => ({ scriptId: answers.createScript!.body.data.id }),
    };
    const answers: Record<string, Awaited<ReturnType<typeof as.post>>> = {};
    // Act
    for (const operation of Object.keys(bodies)) answers[operation] = await as.post(sdk(operation), bodies[operation]!());
    // Assess
    expect(new Set(Object.keys(bodies))).toEqual(new Set(operations));
    for (const [operation, answer] of Object.entries(answers)) {
      expect(answer.status, `${operation}: ${answer.text}`).toBeLessThan(300);
      expect(answer.body.success, operation).toBe(true);
      expect(Object.keys(answer.body.data ?? {}), operation).not.toEqual(expect.arrayContaining(['success', 'data']));
    }
  });

  it('names the deployed version by both its number and its semver, and a deployed script as deployed in every list and read', async () => {
    // Prepare
    const script = await givenScript(api, owner, { code: nodeEcho('v1') });
    await api.as(owner.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: nodeEcho('v2') });
    // Act
    const deployed = await api.as(owner.apiKey).post(sdk('deployScript'), { scriptId: script.id });
    const restList = (await api.as(owner.apiKey).get(`${rest}?limit=100`)).body.data.scripts.find((item: { id: string }) => item.id === script.id);
    const restOne = (await api.as(owner.apiKey).get(`${rest}/${script.id}`)).body.data;
    const restDeployedOnly = (await api.as(owner.apiKey).get(`${rest}?status=deployed&limit=100`)).body.data.scripts.map((item: { id: string }) => item.id);
    const sdkList = (await api.as(owner.apiKey).post(sdk('listScripts'), {})).body.data.scripts.find((item: { id: string }) => item.id === script.id);
    const sdkOne = await getScript(api, owner, script.id);
    const sdkVersions = (await versions(script.id)).versions;
    // Assess
    expect(deployed.body.data).toMatchObject({ version: 2, semver: '1.0.1' });
    for (const read of [restList, restOne])
      expect(read).toMatchObject({ status: 'draft', deploymentStatus: 'deployed', activeVersion: '1.0.1', activeVersionNumber: 2 });
    for (const read of [sdkList, sdkOne])
      expect(read).toMatchObject({ status: 'draft', deploymentStatus: 'deployed', activeVersion: 2, activeSemver: '1.0.1' });
    expect(restDeployedOnly).toContain(script.id);
    expect(sdkVersions[0]).toMatchObject({ version: 2, semver: '1.0.1', isActive: true });
  });
});

describe('scripts: docs/scripts.md', () => {
  it('runs the handlers of docs/scripts.md as written, in node and python', async () => {
    // Prepare
    const guide = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'scripts.md'), 'utf8');
    const blockOf = (language: string) => new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(guide)![1]!;
    const scripts = await Promise.all(
      [
        ['nodejs18', blockOf('js')],
        ['python3.11', blockOf('python')],
      ].map(([runtime, code]) => givenDeployed(api, owner, { runtime, code })),
    );
    // Act
    const outputs = await Promise.all(scripts.map(async (script) => (await execute(api, owner, script.id, { name: 'Ada' })).body.data));
    // Assess
    for (const output of outputs)
      expect(output).toMatchObject({
        status: 'completed',
        output: { greeting: 'hello Ada', run: output.executionId },
        logs: [expect.stringContaining('greeting Ada')],
      });
  });
});

describe('scripts: syntax errors', () => {
  const brokenNode = 'export async function handler(event) {\n  return {;\n}';
  const brokenPython = 'def handler(event, context):\n    return (\n';

  it('refuses broken code on create (SDK and REST, node and python) with its line and column, creating nothing', async () => {
    // Prepare
    const before = (await api.as(owner.apiKey).post(sdk('listScripts'), {})).body.data.count;
    // Act
    const node = await api.as(owner.apiKey).post(sdk('createScript'), { name: 'broken-node', code: brokenNode });
    const python = await api.as(owner.apiKey).post(rest, { name: 'broken-python', runtime: 'python3.11', code: brokenPython });
    // Assess
    expect(node.status).toBe(400);
    expect(node.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^syntax error at line 2, column \d+/),
      details: { field: 'code', line: 2, column: expect.any(Number) },
    });
    expect(python.status).toBe(400);
    expect(python.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'code', line: 2, column: expect.any(Number) } });
    expect((await api.as(owner.apiKey).post(sdk('listScripts'), {})).body.data.count).toBe(before);
  });

  it('refuses broken code in a new version or a PATCH, keeping versions and metadata as they were', async () => {
    // Prepare
    const script = await givenScript(api, owner);
    // Act
    const version = await api.as(owner.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: brokenNode });
    const restVersion = await api.as(owner.apiKey).post(`${rest}/${script.id}/versions`, { version: '2.0.0', code: brokenNode });
    const patch = await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { description: 'should not stick', code: brokenNode });
    // Assess
    for (const refused of [version, restVersion, patch]) {
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'code', line: 2 } });
    }
    expect(await versions(script.id)).toMatchObject({ versions: [expect.objectContaining({ version: 1 })] });
    expect(await getScript(api, owner, script.id)).toMatchObject({ description: 'a test script' });
  });
});

describe('scripts: updating', () => {
  it('changes metadata and config, makes new code a new version, and redeploys the active version with new memory', async () => {
    // Prepare
    const script = await givenDeployed(api, owner);
    const before = await getScript(api, owner, script.id);
    // Act
    const updated = await api
      .as(owner.apiKey)
      .patch(`${rest}/${script.id}`, { description: 'new words', tags: ['a'], config: { memory: 256 }, code: nodeEcho('patched') });
    const run = await execute(api, owner, script.id);
    // Assess
    expect(updated.status).toBe(200);
    expect(updated.body.message).toMatch(
      /^the code is saved as version 1\.0\.1 \(versionId ver_\w+\) and is not deployed: POST \/api\/sdk\/v1\/scripts\/\S+\/deploy to run it$/,
    );
    expect(updated.body.data).toMatchObject({
      id: script.id,
      description: 'new words',
      tags: ['a'],
      latestVersion: '1.0.1',
      activeVersion: '1.0.0',
      config: { memory: 256, timeout: 30 },
    });
    expect(updated.body.data.deployedAt > before.deployedAt).toBe(true);
    expect(run.body.data.output.label).toBe('v1');
    expect(await getScript(api, owner, script.id)).toMatchObject({ memory: 256 });
  });

  it('refuses an empty or unknown change with VALIDATION_ERROR and changes nothing', async () => {
    // Prepare
    const script = await givenScript(api, owner);
    // Act
    const empty = await api.as(owner.apiKey).patch(`${rest}/${script.id}`, {});
    const unknown = await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { owner: 'me' });
    // Assess
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
    expect(unknown.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'owner', value: 'me' } });
    expect(await getScript(api, owner, script.id)).toMatchObject({ description: 'a test script' });
  });
});

describe('scripts: publishing', () => {
  it('refuses to publish before a successful run, then deploys and publishes into the marketplace', async () => {
    // Prepare
    const tag = `tag-${Date.now().toString(36)}`;
    const script = await givenScript(api, owner, { tags: [tag] });
    const early = await api.as(owner.apiKey).post(`${rest}/${script.id}/publish`, {});
    await execute(api, owner, script.id);
    // Act
    const published = await api
      .as(owner.apiKey)
      .post(`${rest}/${script.id}/publish`, { pricing: { model: 'pay-per-execution', basePrice: 0.02 }, category: 'utility' });
    const again = await api.as(owner.apiKey).post(sdk('publishScript'), { scriptId: script.id });
    const market = await api.as(owner.apiKey).get(`${rest}/marketplace?tags=${tag}`);
    // Assess
    expect(early.status).toBe(409);
    expect(published.body.data).toEqual({ id: script.id, status: 'published', publishedAt: expect.any(String) });
    expect(again.status).toBe(409);
    expect(await getScript(api, owner, script.id)).toMatchObject({ isPublished: true, status: 'published', deploymentStatus: 'deployed', activeVersion: 1 });
    expect(market.body.data).toEqual({
      scripts: [
        {
          id: script.id,
          name: expect.any(String),
          description: 'a test script',
          runtime: 'nodejs18',
          category: 'utility',
          pricing: { model: 'pay-per-execution', basePrice: 0.02 },
          rating: 0,
          installCount: 0,
        },
      ],
      total: 1,
      limit: 10,
      offset: 0,
    });
  });

  it('publishes a private script for its owner only, and unpublishes back to draft', async () => {
    // Prepare
    const tag = `private-${Date.now().toString(36)}`;
    const hidden = await givenScript(api, owner, { private: true, tags: [tag] });
    const shown = await givenScript(api, owner, { tags: [tag] });
    for (const script of [hidden, shown]) await execute(api, owner, script.id);
    // Act
    const sdkPublished = await api.as(owner.apiKey).post(sdk('publishScript'), { scriptId: hidden.id });
    await api.as(owner.apiKey).post(sdk('publishScript'), { scriptId: shown.id });
    const listedBefore = await api.as(owner.apiKey).post(sdk('listMarketplaceScripts'), { tags: [tag] });
    const unpublished = await api.as(owner.apiKey).post(sdk('unpublishScript'), { scriptId: shown.id });
    const restUnpublish = await api.as(owner.apiKey).post(`${rest}/${hidden.id}/unpublish`, {});
    const listedAfter = await api.as(owner.apiKey).post(sdk('listMarketplaceScripts'), { tags: [tag] });
    // Assess
    expect(sdkPublished.body.data).toEqual({ scriptId: hidden.id, isPublished: true, status: 'published', publishedAt: expect.any(String) });
    expect(listedBefore.body.data).toMatchObject({ total: 1, limit: 50, offset: 0, scripts: [{ id: shown.id, isPublished: true }] });
    expect(unpublished.body.data).toEqual({ scriptId: shown.id, unpublished: true });
    expect(restUnpublish.body.data).toEqual({ id: hidden.id, status: 'draft' });
    expect(listedAfter.body.data.total).toBe(0);
  });
});

describe('scripts: flows', () => {
  it('answers getFlowScript and modifyFlowScript for an unknown flow with NOT_FOUND and the flowId', async () => {
    // Act
    const read = await api.as(owner.apiKey).post(sdk('getFlowScript'), { flowId: 'flow_missing' });
    const modify = await api.as(owner.apiKey).post(sdk('modifyFlowScript'), { flowId: 'flow_missing', newCode: nodeEcho('x') });
    // Assess
    expect(read.status).toBe(404);
    expect(read.body.error).toMatchObject({ code: 'NOT_FOUND', details: { flowId: 'flow_missing' } });
    expect(modify.body.error).toMatchObject({ code: 'NOT_FOUND', details: { flowId: 'flow_missing' } });
  });
});

describe('scripts: lint', () => {
  it('reports a missing handler, unusable resources and event fields with lines and suggestions', async () => {
    // Prepare
    const code = 'async function main(event) {\n  await resources.mail.send({});\n  await mirra.flows.list();\n  return event.data.subjct;\n}';
    // Act
    const linted = await api.as(owner.apiKey).post(sdk('lintScript'), { code, scriptInputSchema: { subject: { type: 'string' } } });
    const python = await api
      .as(owner.apiKey)
      .post(sdk('lintScript'), { code: 'async def handler(event, context):\n    return event["data"]["content"]["txt"]\n', eventType: 'chatapp.message' });
    const badType = await api.as(owner.apiKey).post(sdk('lintScript'), { code, eventType: 'chatapp.nope' });
    // Assess
    expect(linted.body.data).toEqual({
      valid: false,
      issueCount: 3,
      callAdapterCallsCount: 1,
      mirraSDKCallsCount: 1,
      issues: [
        { severity: 'error', line: 1, message: 'the script has no handler(event, context) function', suggestion: expect.stringContaining('handler') },
        { severity: 'error', line: 2, message: 'no installed resource is named mail', suggestion: expect.any(String) },
        { severity: 'error', line: 4, message: 'event.data.subjct is not in scriptInputSchema', suggestion: expect.stringContaining('subject') },
      ],
    });
    expect(python.body.data).toMatchObject({
      valid: true,
      issueCount: 1,
      issues: [{ severity: 'warning', line: 2, message: expect.stringContaining('no field txt') }],
    });
    expect(badType.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'eventType', value: 'chatapp.nope' } });
  });
});
