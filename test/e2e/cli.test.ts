// The `platform` CLI as a child process against the local platform: scripts from a folder, runs and logs, events,
// flows, documents, templates, a paid call, configuration, and failures as one line with an exit code.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jsonOf, runCli } from '../support/cli.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { givenPayer } from '../support/payments.js';
import { type TestApi, type TestUser, reconfigurePlatform, startTestPlatform, uniqueName } from '../support/platform.js';
import { type Upstream, givenPublishedResource, json, startUpstream } from '../support/resources.js';
import { givenSiteRepo, givenTemplate, pricing, templatesPath } from '../support/templates.js';

let api: TestApi;
let upstream: Upstream;
let user: TestUser;
let env: Record<string, string>;
/** Each command is a fresh Node process: on a busy machine a test of five commands takes a while. */
const slow = 240_000;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  user = await api.givenUser();
  upstream.respond((request, response) => json(response, 200, { forecast: 'sunny', path: request.url }));
  env = { PLATFORM_BASE_URL: api.baseUrl, PLATFORM_API_KEY: user.apiKey, PLATFORM_CONFIG: join(mkdtempSync(join(tmpdir(), 'cli-config-')), 'config.json') };
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

function scriptFolder(name: string, code: string, manifest: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'cli-script-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify({ name, ...manifest }));
  writeFileSync(join(dir, manifest.runtime === 'python3.11' ? 'main.py' : 'index.js'), code);
  return dir;
}

describe('cli: scripts', () => {
  it(
    'pushes a folder (create, then a new version), runs it and prints the logs of the run',
    async () => {
      // Prepare
      const name = `cli-echo-${Date.now().toString(36)}`;
      const first = scriptFolder(name, 'async function handler(event) { console.log("v1 got", event.data.n); return { success: true, label: "v1" } }');
      const second = scriptFolder(name, 'async function handler(event) { console.log("v2 got", event.data.n); return { success: true, label: "v2" } }');
      // Act
      const created = await runCli(['scripts', 'push', first], env);
      const updated = jsonOf(await runCli(['--json', 'scripts', 'push', second], env));
      const run = jsonOf(await runCli(['--json', 'scripts', 'run', name, '--data', '{"n":7}'], env));
      const logs = await runCli(['logs', run.executionId], env);
      const followed = await runCli(['logs', run.executionId, '--follow'], env);
      const list = await runCli(['scripts', 'list'], env);
      // Assess
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(new RegExp(`^created script ${name} \\(scr_\\w+\\), deployed version 1 \\(1\\.0\\.0\\)\\n$`));
      expect(updated).toMatchObject({ created: false, deployment: { version: 2, semver: '1.0.1' } });
      expect(run).toMatchObject({ status: 'completed', output: { success: true, label: 'v2' } });
      expect(logs.stdout).toContain('v2 got 7');
      expect(followed.stdout).toMatch(new RegExp(`^v2 got 7\\n=== ${run.executionId} completed in [\\d.]+ ms\\n$`));
      expect(list.stdout).toMatch(new RegExp(`^scr_\\w+  draft, deployed version 2 \\(1\\.0\\.1\\) +${name}$`, 'm'));
    },
    slow,
  );

  it(
    'pushes a python script',
    async () => {
      // Prepare
      const dir = scriptFolder(
        `cli-py-${Date.now().toString(36)}`,
        'def handler(event, context):\n    return {"success": True, "twice": event["data"]["n"] * 2}\n',
        { runtime: 'python3.11' },
      );
      // Act
      const pushed = jsonOf(await runCli(['--json', 'scripts', 'push', dir], env));
      const run = jsonOf(await runCli(['--json', 'scripts', 'run', pushed.scriptId, '--data', '{"n":21}'], env));
      // Assess
      expect(run.output).toEqual({ success: true, twice: 42 });
    },
    slow,
  );

  it(
    'waits for a run that goes on past the synchronous wait (202) and prints its end',
    async () => {
      // Prepare
      const resourceName = `cli-gate-${Date.now().toString(36)}`;
      const resourceId = await givenPublishedResource(api, user, { name: resourceName }, { baseUrl: upstream.baseUrl });
      await api.as(user.apiKey).post(`/api/sdk/v1/resources/${resourceId}/install`);
      const code = `async function handler() { return await resources['${resourceName}'].getForecast({ city: 'Bergen' }); }`;
      const pushed = jsonOf(
        await runCli(
          ['--json', 'scripts', 'push', scriptFolder(`cli-long-${Date.now().toString(36)}`, code, { config: { allowedResources: [resourceName] } })],
          env,
        ),
      );
      const held: ServerResponse[] = [];
      upstream.respond((_request, response) => held.push(response));
      reconfigurePlatform({ RUN_WAIT_SECONDS: '0' });
      try {
        // Act
        const running = runCli(['--json', 'scripts', 'run', pushed.scriptId], env);
        await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 60_000, interval: 50 });
        json(held[0]!, 200, { forecast: 'rain' });
        const run = jsonOf(await running);
        // Assess
        expect(run).toMatchObject({ status: 'completed', output: { forecast: 'rain' } });
      } finally {
        reconfigurePlatform({ RUN_WAIT_SECONDS: undefined });
        upstream.respond((request, response) => json(response, 200, { forecast: 'sunny', path: request.url }));
      }
    },
    slow,
  );

  it(
    'refuses broken code with one line naming the line, exit code 1, and a folder without a manifest with exit code 2',
    async () => {
      // Prepare
      const broken = scriptFolder(`cli-broken-${Date.now().toString(36)}`, 'async function handler(event) {\n  return {;\n}');
      const empty = mkdtempSync(join(tmpdir(), 'cli-empty-'));
      // Act
      const refused = await runCli(['scripts', 'push', broken], env);
      const usage = await runCli(['scripts', 'push', empty], env);
      // Assess
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^error: VALIDATION_ERROR \(400\): syntax error at line 2, column \d+: .* \[field code\]$/),
      ]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/script\.json not found/);
    },
    slow,
  );
});

describe('cli: exit codes', () => {
  it(
    'exits 3 after printing a run that failed, 2 for an unknown command, and 4 naming the URL and cause when nothing answers',
    async () => {
      // Prepare
      const name = `cli-fails-${Date.now().toString(36)}`;
      const dir = scriptFolder(name, 'async function handler() { throw new Error("the harbour is closed") }');
      await runCli(['scripts', 'push', dir], env);
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const closed = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await new Promise((resolve) => server.close(resolve));
      // Act
      const failed = await runCli(['scripts', 'run', name], env);
      const unknown = await runCli(['scripts', 'frobnicate'], env);
      const unreachable = await runCli(['whoami'], { ...env, PLATFORM_BASE_URL: closed });
      // Assess
      expect(failed.code).toBe(3);
      expect(failed.stdout).toMatch(/^exe_\w+ failed in [\d.]+ ms\n.*the harbour is closed/);
      expect(unknown.code).toBe(2);
      expect(unreachable.code).toBe(4);
      expect(unreachable.stderr.trim()).toMatch(new RegExp(`^error: cannot reach ${closed}: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+$`));
    },
    slow,
  );
});

describe('cli: events and flows', () => {
  it(
    'emits an event, creates a time flow, lists, runs and pauses it by its id',
    async () => {
      // Prepare
      const pushed = jsonOf(
        await runCli(
          ['--json', 'scripts', 'push', scriptFolder(`cli-flow-${Date.now().toString(36)}`, 'async function handler() { return { success: true } }')],
          env,
        ),
      );
      // Act
      const emitted = jsonOf(await runCli(['--json', 'events', 'emit', 'chatapp.message', '--data', '{"content":{"text":"hello"}}'], env));
      const flow = jsonOf(
        await runCli(
          ['--json', 'flows', 'create', '--title', 'Nightly', '--description', 'runs nightly', '--schedule', '0 3 * * *', '--script', pushed.scriptId],
          env,
        ),
      );
      const listed = await runCli(['flows', 'list'], env);
      const ran = jsonOf(await runCli(['--json', 'flows', 'run', flow.id], env));
      const paused = await runCli(['flows', 'pause', flow.id], env);
      while (!(await api.as(user.apiKey).get('/api/sdk/v1/events?type=chatapp.message')).body.data.events.length);
      const history = await runCli(['events', 'list', '--type', 'chatapp.message'], env);
      // Assess
      expect(emitted.eventId).toMatch(/^evt_/);
      expect(listed.stdout).toContain(`${flow.id}  active   Nightly`);
      expect(ran).toMatchObject({ status: 'success' });
      expect(paused.stdout.trim()).toBe(`paused flow ${flow.id}: paused`);
      expect(history.stdout).toMatch(new RegExp(`^\\S+  ${emitted.eventId}  chatapp.message  \\(api\\)$`, 'm'));
    },
    slow,
  );
});

describe('cli: --idempotency-key', () => {
  it(
    'sends the key with scripts run, flows run and events emit: a repeat answers the first run or event',
    async () => {
      // Prepare
      const pushed = jsonOf(
        await runCli(
          ['--json', 'scripts', 'push', scriptFolder(`cli-once-${Date.now().toString(36)}`, 'async function handler() { return { success: true } }')],
          env,
        ),
      );
      const flow = jsonOf(
        await runCli(
          ['--json', 'flows', 'create', '--title', 'Once', '--description', 'runs once', '--schedule', '0 3 * * *', '--script', pushed.scriptId],
          env,
        ),
      );
      const key = `cli-${Date.now().toString(36)}`;
      const twice = (args: string[]) => Promise.all([0, 1].map(() => runCli(['--json', ...args, '--idempotency-key', key], env).then(jsonOf)));
      // Act
      const runs = await twice(['scripts', 'run', pushed.scriptId]);
      const flowRuns = await twice(['flows', 'run', flow.id]);
      const events = await twice(['events', 'emit', 'custom.once']);
      const refused = await runCli(['scripts', 'run', pushed.scriptId, '--idempotency-key', 'k'.repeat(256)], env);
      // Assess
      expect(runs[1].executionId).toBe(runs[0].executionId);
      expect(flowRuns[1].executionId).toBe(flowRuns[0].executionId);
      expect(events[1].eventId).toBe(events[0].eventId);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('error: VALIDATION_ERROR (400)');
      expect(refused.stderr).toContain('[field Idempotency-Key]');
      const history = await api.as(user.apiKey).get(`/api/sdk/v1/scripts/${pushed.scriptId}/executions?limit=100`);
      expect(history.body.data.executions.filter((run: { trigger?: string }) => run.trigger !== 'flow')).toHaveLength(1);
    },
    slow,
  );
});

describe('cli: runs and approvals', () => {
  const durableScript = async (code: string) => {
    const created = await api.as(user.apiKey).post('/api/sdk/v1/scripts', { name: `cli-durable-${uniqueName('s')}`, code, config: { durable: true } });
    await api.as(user.apiKey).post('/api/sdk/v1/scripts/deployScript', { scriptId: created.body.data.id });
    return created.body.data.id as string;
  };
  const execute = async (scriptId: string, data: Record<string, unknown> = {}) =>
    (await api.as(user.apiKey).post('/api/sdk/v1/scripts/executeScript', { scriptId, data })).body.data;
  const statusOf = async (executionId: string) => (await api.as(user.apiKey).post('/api/sdk/v1/scripts/getExecution', { executionId })).body.data.status;

  it(
    'cancels a waiting run, re-runs a run from a step and replays the failed runs of a script',
    async () => {
      // Prepare
      const waiting = await execute(await durableScript("async function handler(event, context) { await context.wait('later', { hours: 1 }); return 1 }"));
      const scriptId = await durableScript(
        "async function handler(event, context) { const n = await context.step('first', async () => event.data.n); if (event.data.fail) throw new Error('failed on purpose'); return { n } }",
      );
      const completed = await execute(scriptId, { n: 1 });
      const failed = await execute(scriptId, { n: 2, fail: true });
      // Act
      const cancelled = await runCli(['runs', 'cancel', waiting.executionId], env);
      const rerun = jsonOf(await runCli(['--json', 'runs', 'rerun', completed.executionId, '--from-step', 'first'], env));
      const replayed = jsonOf(await runCli(['--json', 'runs', 'replay', '--script', scriptId, '--status', 'failed'], env));
      const refused = await runCli(['runs', 'rerun', completed.executionId, '--from-step', 'missing'], env);
      // Assess
      expect([waiting.status, completed.status, failed.status]).toEqual(['waiting', 'completed', 'failed']);
      expect(cancelled.stdout.trim()).toBe(`${waiting.executionId} cancelled`);
      expect(await statusOf(waiting.executionId)).toBe('cancelled');
      expect(rerun).toEqual({ executionId: expect.stringMatching(/^exe_/), status: 'running' });
      await vi.waitFor(async () => expect(await statusOf(rerun.executionId)).toBe('completed'), { timeout: 30_000, interval: 100 });
      expect(replayed.executionIds).toHaveLength(1);
      expect(replayed.executionIds[0]).not.toBe(failed.executionId);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('[field fromStep]');
    },
    slow,
  );

  it(
    'prints a flow run with its script run as its child, and lists runs by kind and status',
    async () => {
      // Prepare
      const script = (await api.as(user.apiKey).post('/api/sdk/v1/scripts', { name: uniqueName('cli-flowed'), code: 'async function handler() { return 1 }' }))
        .body.data;
      await api.as(user.apiKey).post('/api/sdk/v1/scripts/deployScript', { scriptId: script.id });
      const flowId = (await givenTimeFlow(api, user, script.id)).id;
      await api.as(user.apiKey).post(flowsPath('runFlow'), { flowId });
      const runs = (await api.as(user.apiKey).get(`/api/sdk/v1/executions?flowId=${flowId}`)).body.data.executions as Array<Record<string, string>>;
      const flowRun = runs.find((item) => item.kind === 'flow')!.executionId;
      const child = runs.find((item) => item.kind === 'script')!.executionId;
      // Act
      const got = await runCli(['runs', 'get', flowRun], env);
      const childGot = await runCli(['runs', 'get', child], env);
      const flowsListed = jsonOf(await runCli(['--json', 'runs', 'list', '--kind', 'flow', '--status', 'completed'], env));
      const refused = await runCli(['runs', 'list', '--status', 'done'], env);
      // Assess
      expect(got.stdout).toContain(`${flowRun}  flow run of flow ${flowId}`);
      expect(got.stdout).toMatch(/^status {4}completed$/m);
      expect(got.stdout).toMatch(new RegExp(`^children\n  ${child}$`, 'm'));
      expect(childGot.stdout).toMatch(new RegExp(`^parent {4}${flowRun}$`, 'm'));
      expect(flowsListed.executions.map((item: { executionId: string }) => item.executionId)).toContain(flowRun);
      expect(flowsListed.executions.every((item: { kind: string; status: string }) => item.kind === 'flow' && item.status === 'completed')).toBe(true);
      expect(refused.code).toBe(2);
    },
    slow,
  );

  it(
    'lists the pending approvals of its user, approves one and rejects another',
    async () => {
      // Prepare
      const approver = await api.givenUser();
      const asApprover = { ...env, PLATFORM_API_KEY: approver.apiKey };
      const askerId = await durableScript(
        "async function handler(event, context) { return { answer: await context.waitForApproval('ship', event.data.request) } }",
      );
      const pending = async () =>
        (await api.as(approver.apiKey).get('/api/sdk/v1/approvals?limit=50')).body.data.approvals as Array<{ approvalId: string; executionId: string }>;
      const request = async (message: string) => {
        const { executionId } = await execute(askerId, { request: { approvers: [approver.username], message } });
        return vi.waitFor(
          async () => {
            const found = (await pending()).find((item) => item.executionId === executionId);
            expect(found).toBeDefined();
            return found!;
          },
          { timeout: 20_000, interval: 100 },
        );
      };
      const ship = await request('ship?');
      const drop = await request('drop?');
      // Act
      const listed = jsonOf(await runCli(['--json', 'approvals', 'list'], asApprover));
      const approved = await runCli(['approvals', 'approve', ship.approvalId, '--comment', 'go'], asApprover);
      const rejected = jsonOf(await runCli(['--json', 'approvals', 'reject', drop.approvalId], asApprover));
      const left = await runCli(['approvals', 'list'], asApprover);
      // Assess
      // Soonest expiry first: both wait as long, so the one asked first.
      expect(listed.approvals.map((item: { approvalId: string }) => item.approvalId)).toEqual([ship.approvalId, drop.approvalId]);
      expect(approved.stdout.trim()).toBe(`${ship.approvalId} approved by ${approver.username}`);
      expect(rejected).toMatchObject({ approvalId: drop.approvalId, status: 'rejected', decision: 'reject' });
      expect(left.stdout.trim()).toBe('no pending approvals');
      await vi.waitFor(async () => expect(await statusOf(ship.executionId)).toBe('completed'), { timeout: 30_000, interval: 100 });
    },
    slow,
  );
});

describe('cli: templates', () => {
  it(
    'builds a template printing its log, and installs it with customization values',
    async () => {
      // Prepare
      const { repo, gitHash } = givenSiteRepo();
      const templateId = await givenTemplate(api, user, { repository: repo.url, gitHash });
      const installer = await api.givenUser();
      // Act
      const built = await runCli(['templates', 'build', templateId], env);
      await api.as(user.apiKey).post(`${templatesPath}/${templateId}/publish`, { pricing });
      const installed = await runCli(['templates', 'install', templateId, '--set', 'hero.title=Harbour', 'layout.columns=3'], {
        ...env,
        PLATFORM_API_KEY: installer.apiKey,
      });
      const refused = await runCli(['templates', 'install', templateId, '--set', 'layout.columns=9'], { ...env, PLATFORM_API_KEY: installer.apiKey });
      // Assess
      expect(built.code).toBe(0);
      expect(built.stdout).toContain('| built v1');
      expect(built.stdout).toMatch(/built: http:\/\/\S+\.localhost:\d+\/ or http:\/\/127\.0\.0\.1:\d+\/pages\/\S+\/\n$/);
      expect(installed.code).toBe(0);
      expect(installed.stdout).toMatch(/^installed \S+ as \S+ \(version [\d.]+\)$/m);
      expect(installed.stdout).toMatch(/^page: http:\/\/\S+\.localhost:\d+\/ or http:\/\/127\.0\.0\.1:\d+\/pages\/\S+\/$/m);
      expect(installed.stdout).toMatch(/built: http:\/\/\S+ or http:\/\/127\.0\.0\.1:\d+\/pages\/\S+\/\n$/);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: VALIDATION_ERROR \(400\): /);
    },
    slow,
  );
});

describe('cli: documents and payments', () => {
  it(
    'uploads a document with a progress bar and finds it by search',
    async () => {
      // Prepare
      const file = join(mkdtempSync(join(tmpdir(), 'cli-doc-')), 'harbour.txt');
      writeFileSync(file, 'The harbour master opens the northern lock at dawn for fishing boats.\n'.repeat(20));
      // Act
      const uploaded = await runCli(['--json', 'docs', 'upload', file], env);
      const found = jsonOf(await runCli(['--json', 'docs', 'search', 'when does the northern lock open', '--threshold', '0'], env));
      // Assess
      expect(jsonOf(uploaded)).toMatchObject({ status: 'completed', chunkCount: expect.any(Number) });
      expect(uploaded.stderr).toContain('upload |');
      expect(found.results[0]).toMatchObject({ documentName: 'harbour.txt', content: expect.stringContaining('northern lock') });
    },
    slow,
  );

  it(
    'pays for a paid call from a keypair file and prints the answer',
    async () => {
      // Prepare
      const seller = await api.givenUser({ walletAddress: Keypair.generate().publicKey.toBase58() });
      const resourceId = await givenPublishedResource(
        api,
        seller,
        { pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' } },
        { baseUrl: upstream.baseUrl },
      );
      const payer = await givenPayer(api);
      const keypair = join(mkdtempSync(join(tmpdir(), 'cli-key-')), 'payer.json');
      writeFileSync(keypair, JSON.stringify([...payer.secretKey]));
      // Act
      const paid = jsonOf(await runCli(['--json', 'pay', `${api.baseUrl}/api/x402/resources/${resourceId}/getForecast?city=Oslo`, '--keypair', keypair], env));
      // Assess
      expect(paid.answer).toMatchObject({ forecast: 'sunny', path: '/forecast/Oslo' });
      expect(paid.settlement).toMatchObject({ success: true, transaction: expect.any(String) });
    },
    slow,
  );
});

describe('cli: configuration', () => {
  it(
    'saves base URL and key with configure, falls back to .data/dev.json, says what to do with neither, and prints the OpenAPI document',
    async () => {
      // Prepare
      const config = join(mkdtempSync(join(tmpdir(), 'cli-config-')), 'config.json');
      const project = mkdtempSync(join(tmpdir(), 'cli-project-'));
      mkdirSync(join(project, '.data'));
      writeFileSync(join(project, '.data', 'dev.json'), JSON.stringify({ baseUrl: api.baseUrl, apiKey: user.apiKey }));
      const nowhere = mkdtempSync(join(tmpdir(), 'cli-nowhere-'));
      // Act
      await runCli(['configure', '--base-url', api.baseUrl, '--api-key', user.apiKey], { PLATFORM_CONFIG: config });
      const configured = await runCli(['whoami'], { PLATFORM_CONFIG: config });
      const fromDev = await runCli(['whoami'], { PLATFORM_CONFIG: join(nowhere, 'none.json') }, project);
      const lost = await runCli(['whoami'], { PLATFORM_CONFIG: join(nowhere, 'none.json') }, nowhere);
      const document = jsonOf(await runCli(['openapi'], { PLATFORM_CONFIG: config }));
      // Assess
      expect(configured.stdout).toContain(user.userId);
      expect(fromDev.stdout).toContain(user.userId);
      expect(lost.code).toBe(2);
      expect(lost.stderr).toMatch(/^error: no base URL: run `platform configure/);
      expect(document.paths['/api/sdk/v1/events'].get.summary).toMatch(/events/);
    },
    slow,
  );
});
