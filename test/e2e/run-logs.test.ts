// Logs of durable runs over HTTP with real sandboxed workers and DynamoDB Local: every invocation's lines survive a
// wait, in order, each with its invocation and the step it was printed in; in the record, the follow route (which
// goes on through a wait), and the CLI. A run that waits many times keeps a bounded log.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { durableRuns } from '../support/durable-runs.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(async () => {
  await api.stop();
});

interface LogLine {
  text: string;
  invocation: number;
  step?: string;
}

const durable = (code: string, runtime = 'nodejs18') => givenDeployed(api, owner, { runtime, code, config: { durable: true } });
const start = async (scriptId: string) => {
  const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId, data: {} });
  expect(started.status).toBe(202);
  return started.body.data.executionId as string;
};
const logsPage = async (executionId: string, after: number, wait: number) => {
  const answer = await api.as(owner.apiKey).get(`/api/sdk/v1/executions/${executionId}/logs?after=${after}&wait=${wait}`);
  expect(answer.status).toBe(200);
  return answer.body.data as { status: string; lines: string[]; entries: LogLine[]; next: number; done: boolean };
};
/** Follows the run as the CLI does, from its first line until the route says it is done; the statuses seen on the way. */
async function follow(executionId: string) {
  const entries: LogLine[] = [];
  const lines: string[] = [];
  const statuses: string[] = [];
  for (let after = 0; ; ) {
    const page = await logsPage(executionId, after, 5);
    entries.push(...page.entries);
    lines.push(...page.lines);
    statuses.push(page.status);
    after = page.next;
    if (page.done) return { entries, lines, statuses };
  }
}

const nodeRefund = `export async function handler(event, context) {
  console.log('looking up o-1');
  await context.step('charge', async () => {
    console.log('preparing refund for o-1');
    return 1;
  });
  await context.wait('pause', { seconds: 2 });
  await context.step('confirm', async () => {
    console.log('STEP-SECOND-RAN');
    return 2;
  });
  console.log('refund done');
  return 'ok';
}`;

const pythonRefund = `def handler(event, context):
    print("looking up o-1")
    def charge():
        print("preparing refund for o-1")
        return 1
    context.step("charge", charge)
    context.wait("pause", seconds=2)
    def confirm():
        print("STEP-SECOND-RAN")
        return 2
    context.step("confirm", confirm)
    print("refund done")
    return "ok"
`;

/** The run's lines: code outside steps runs again in the resumed invocation, a finished step does not. */
const refundLines: LogLine[] = [
  { text: 'looking up o-1', invocation: 1 },
  { text: 'preparing refund for o-1', invocation: 1, step: 'charge' },
  { text: 'looking up o-1', invocation: 2 },
  { text: 'STEP-SECOND-RAN', invocation: 2, step: 'confirm' },
  { text: 'refund done', invocation: 2 },
];

describe('logs of a durable run', () => {
  it.each([
    ['node', 'nodejs18', nodeRefund],
    ['python', 'python3.11', pythonRefund],
  ])('%s: the lines before a wait survive it, with their invocation and step, in the record and the follow route', async (_label, runtime, code) => {
    // Prepare
    const script = await durable(code, runtime);
    // Act
    const executionId = await start(script.id);
    const followed = await follow(executionId);
    const record = await durableRuns(api, owner).waitForStatus(executionId, 'completed');
    // Assess
    expect(followed.statuses).toContain('waiting');
    expect(followed.statuses.at(-1)).toBe('success');
    expect(followed.entries).toEqual(refundLines);
    expect(followed.lines).toEqual(refundLines.map((line) => line.text));
    expect(record.logs).toEqual(refundLines.map((line) => line.text));
    expect(record.logLines).toEqual(refundLines);
    const fromThird = await logsPage(executionId, 3, 0);
    expect(fromThird).toMatchObject({ lines: ['STEP-SECOND-RAN', 'refund done'], next: 5, done: true });
  });

  it('attributes the lines of two steps running at once to the step that printed each', async () => {
    // Prepare
    const script = await durable(`export async function handler(event, context) {
  const turn = (() => { let open; const gate = new Promise((resolve) => (open = resolve)); return { gate, open }; })();
  await Promise.all([
    context.step('left', async () => {
      console.log('left begins');
      await turn.gate;
      console.log('left ends');
      return 'l';
    }),
    context.step('right', async () => {
      console.log('right begins');
      turn.open();
      await Promise.resolve();
      console.log('right ends');
      return 'r';
    }),
  ]);
  await context.wait('pause', { seconds: 1 });
  return 'ok';
}`);
    // Act
    const executionId = await start(script.id);
    const record = await durableRuns(api, owner).waitForStatus(executionId, 'completed');
    // Assess
    const byText = Object.fromEntries((record.logLines as LogLine[]).map((line) => [line.text, line.step]));
    expect(byText).toEqual({ 'left begins': 'left', 'left ends': 'left', 'right begins': 'right', 'right ends': 'right' });
    expect(record.logLines.every((line: LogLine) => line.invocation === 1)).toBe(true);
  });

  it("keeps a run's log within its bound when it waits many times, and says where it stopped", async () => {
    // Prepare: each invocation prints about 120 KB, so the third passes the run's 300,000 bytes.
    const script = await durable(`export async function handler(event, context) {
  for (let round = 1; round <= 5; round++) {
    await context.step('print ' + round, async () => {
      for (let line = 0; line < 12; line++) console.log('round ' + round + ' ' + 'x'.repeat(10000));
      return round;
    });
    await context.wait('pause ' + round, { seconds: 1 });
  }
  console.log('last line');
  return 'ok';
}`);
    // Act
    const executionId = await start(script.id);
    const record = await durableRuns(api, owner).waitForStatus(executionId, 'completed');
    // Assess
    const logs = record.logs as string[];
    const bytes = logs.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    expect(bytes).toBeLessThanOrEqual(300_000 + 1_000);
    expect(logs.at(-1)).toMatch(/more log lines of invocation 3, and every line of later invocations, not kept: a run's stored log is limited to 300000 bytes/);
    expect(logs.filter((line) => line.startsWith('round 1 '))).toHaveLength(12);
    expect(logs.some((line) => line.startsWith('round 4 ') || line === 'last line')).toBe(false);
    expect(record.logLines.at(-1)).toMatchObject({ invocation: 3 });
  });

  it('the CLI prints each line with its invocation and step, and --follow goes on through the wait', async () => {
    // Prepare
    const script = await durable(nodeRefund);
    const env = {
      PLATFORM_BASE_URL: api.baseUrl,
      PLATFORM_API_KEY: owner.apiKey,
      PLATFORM_CONFIG: join(mkdtempSync(join(tmpdir(), 'cli-config-')), 'config.json'),
    };
    // Act
    const executionId = await start(script.id);
    const followed = await runCli(['logs', executionId, '--follow'], env);
    const printed = await runCli(['logs', executionId], env);
    // Assess
    const labelled = ['[#1] looking up o-1', '[#1 charge] preparing refund for o-1', '[#2] looking up o-1', '[#2 confirm] STEP-SECOND-RAN', '[#2] refund done'];
    expect(printed.code).toBe(0);
    expect(printed.stdout.split('\n').slice(1, 6)).toEqual(labelled);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain(['looking up o-1', ...labelled.slice(1)].join('\n'));
    expect(followed.stdout).toMatch(/=== exe_\S+ completed/);
  });
});
