// The console's durable-run views in a real Chromium against the local platform: a run waiting on an approval found in
// the approvals list and approved, its steps on the run's timeline, cancel, re-run from a step, bulk replay, and the
// page an approval's signed link opens without a key.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { inProcessBus } from '../../functions/adapters/local/event-bus.js';
import { type TestBrowser, launchBrowser, screenshotDir } from '../support/browser.js';
import { type TestApi, type TestUser, startTestPlatform, uniqueName } from '../support/platform.js';
import { execute, givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let approver: TestUser;
let browser: TestBrowser;
let asker: string;
let askerName: string;
/** The signed links of `platform.approval.requested` as the bus carries them, by run. */
const links = new Map<string, { approvalId: string; link: string }>();
let untap: () => void;

/** Waits for what the page shows, as a user would (no fixed sleeps). */
const until = <T>(read: () => Promise<T> | T, timeout = 20_000) => expect.poll(read, { timeout, interval: 100 });

beforeAll(async () => {
  [api, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  [owner, approver] = await Promise.all([api.givenUser(), api.givenUser()]);
  untap = inProcessBus.subscribe(async (event) => {
    if (event.type !== 'platform.approval.requested') return;
    // Each approver's link is in that approver's own event only.
    const data = event.data as { executionId: string; approvalId: string; approvers: Array<{ approvalUrl?: string }> };
    const link = data.approvers.find((approver) => approver.approvalUrl)?.approvalUrl;
    if (link) links.set(data.executionId, { approvalId: data.approvalId, link });
  });
  askerName = uniqueName('asker');
  asker = (
    await givenDeployed(api, owner, {
      name: askerName,
      config: { durable: true },
      code: "export async function handler(event, context) {\n  return { answer: await context.waitForApproval('ship', event.data.request) };\n}\n",
    })
  ).id;
  // The main tab is the owner's, signed in once: the key stays in its session storage across the URLs below.
  await browser.page.goto(`${api.baseUrl}/`);
  await browser.page.getByLabel('API key').fill(owner.apiKey);
  await browser.page.getByLabel('API key').press('Enter');
  await browser.page.getByText(`Signed in as ${owner.username}`).waitFor({ timeout: 20_000 });
});
afterAll(async () => {
  untap?.();
  await browser?.close();
  await api?.stop();
});

/** A deployed durable script of the owner's, named so the console shows it. */
function givenDurable(code: string) {
  return givenDeployed(api, owner, { name: uniqueName('durable'), code, config: { durable: true } });
}
const getRun = async (executionId: string) => (await api.as(owner.apiKey).post(sdk('getExecution'), { executionId })).body.data;
const ended = (executionId: string) => until(async () => (await getRun(executionId)).status, 60_000).toMatch(/^(completed|failed|cancelled)$/);
/** Starts a run and answers its id: a durable run that suspends answers at once. */
async function started(scriptId: string, data: Record<string, unknown> = {}) {
  const response = await execute(api, owner, scriptId, data);
  if (response.status !== 200 && response.status !== 202) throw new Error(`execute answered ${response.status}: ${response.text}`);
  return response.body.data.executionId as string;
}
async function openRun(executionId: string) {
  await browser.page.goto(`${api.baseUrl}/#/runs/${encodeURIComponent(executionId)}`);
  await browser.page.reload();
  return browser.page.getByRole('region', { name: `Run ${executionId}` });
}

const signedPath = (approvalId: string, token: string) => `/api/sdk/v1/approvals/${approvalId}/signed?token=${token}`;

/** A run of the owner's that waits for the approver's decision, and the signed link the approver is sent. */
async function givenApprovalLink(request: Record<string, unknown>) {
  const executionId = await started(asker, { request: { approvers: [approver.username], ...request } });
  await until(() => links.has(executionId)).toBe(true);
  const { approvalId, link } = links.get(executionId)!;
  const url = new URL(link, api.baseUrl);
  return { executionId, approvalId, path: `${url.pathname}${url.hash}`, token: url.hash.split('token=')[1]! };
}

/** A tab of its own, with nothing signed in: what an approver who only has the link gets. */
async function openLink(path: string) {
  const page = await browser.context.newPage();
  await page.goto(`${api.baseUrl}${path}`);
  return page;
}

describe("console: an approval's signed link", () => {
  it('shows the approval without a key, decides it with a comment and shows the outcome, also after a reload', async () => {
    onTestFailed(() => browser.screenshot('failure-signed-link'));
    // Prepare
    const { executionId, approvalId, path, token } = await givenApprovalLink({ message: 'Ship order 42 to Oslo?' });
    const page = await openLink(path);
    try {
      // Assess: what is asked, for what, and until when, with no sign-in on the way.
      const region = page.getByRole('region', { name: 'Approval ship' });
      await until(() => region.textContent()).toContain('Ship order 42 to Oslo?');
      expect(await region.textContent()).toMatch(new RegExp(`Forscript ${askerName}.*Requested.*Expires.*You decide as ${approver.username}`));
      expect(await page.getByLabel('API key').count()).toBe(0);
      await page.screenshot({ path: join(screenshotDir, '30-signed-approval.png'), fullPage: true });
      // Act
      await region.getByLabel('Comment').fill('carrier booked');
      await region.getByRole('button', { name: 'Approve' }).click();
      // Assess: the outcome on the page, in the approval and in the run, which goes on with the decision.
      await until(() => region.getByRole('status').textContent()).toMatch(new RegExp(`approved by ${approver.username} at .*Comment: "carrier booked"`));
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Approval approved');
      expect((await api.request('GET', signedPath(approvalId, token))).body.data).toMatchObject({
        status: 'approved',
        decision: 'approve',
        decidedBy: approver.username,
        comment: 'carrier booked',
      });
      await ended(executionId);
      expect((await getRun(executionId)).output.answer).toMatchObject({ decision: 'approve', by: approver.username, comment: 'carrier booked' });
      await page.reload();
      await until(() => region.getByRole('status').textContent()).toContain(`approved by ${approver.username}`);
      expect(await region.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('refuses a second decision made through a page opened before the first, and keeps the first', async () => {
    onTestFailed(() => browser.screenshot('failure-signed-link-twice'));
    // Prepare: the same link open in two tabs; the first decides.
    const { executionId, approvalId, path, token } = await givenApprovalLink({ message: 'Refund the customer?' });
    const [first, second] = [await openLink(path), await openLink(path)];
    try {
      for (const page of [first, second]) await until(() => page.getByRole('button', { name: 'Reject' }).count()).toBe(1);
      await first.getByRole('button', { name: 'Reject' }).click();
      await until(() => first.getByRole('status').textContent()).toContain('This approval is rejected');
      // Act
      await second.getByLabel('Comment').fill('changed my mind');
      await second.getByRole('button', { name: 'Approve' }).click();
      // Assess: refused, and nothing changed.
      await until(() => second.getByRole('alert').textContent()).toMatch(/^CONFLICT: .*already rejected/);
      const stored = (await api.request('GET', signedPath(approvalId, token))).body.data;
      expect(stored).toMatchObject({ status: 'rejected', decision: 'reject' });
      expect(stored.comment).toBeUndefined();
      await ended(executionId);
      expect((await getRun(executionId)).output.answer).toMatchObject({ decision: 'reject', comment: null });
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 90_000);

  it('says so when the link is expired, wrong, cut short or forged, and offers no decision', async () => {
    // Prepare: one approval timed out (its run failed with TIMEOUT), one still pending.
    const expired = await givenApprovalLink({ message: 'Too late?', timeout: { seconds: 1 } });
    await ended(expired.executionId);
    const valid = await givenApprovalLink({ message: 'Guessed?' });
    // Act
    const pages = [
      await openLink(expired.path),
      await openLink(`/#/approve/${valid.approvalId}?token=apv_guessed`),
      await openLink(`/#/approve/${valid.approvalId}`),
      await openLink(`/#/approve/..%2F..%2Fme%3Cimg%20src%3Dx%3E?token=${valid.token}`),
    ];
    const [late, guessed, cut, forged] = pages;
    try {
      // Assess
      await until(() => late!.getByRole('status').textContent()).toContain('This approval is expired: no decision can be made any more.');
      await until(() => guessed!.getByRole('alert').textContent()).toBe('This link is not valid: it may be mistyped, already used or expired.');
      await until(() => cut!.getByRole('alert').textContent()).toBe('This link is incomplete: open it exactly as you received it.');
      await until(() => forged!.getByRole('alert').count()).toBe(1);
      expect(await forged!.locator('img').count()).toBe(0);
      for (const page of pages) expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect((await api.request('GET', signedPath(valid.approvalId, valid.token))).body.data.status).toBe('pending');
      expect((await getRun(valid.executionId)).status).toBe('waiting');
    } finally {
      await Promise.all(pages.map((page) => page.close()));
    }
  }, 90_000);
});

describe("console: a durable run's page", () => {
  const approvalScript = `export async function handler(event, context) {
  const order = await context.step('reserve', async () => ({ item: event.data.item }));
  const decision = await context.waitForApproval('manager', { message: 'Ship ' + order.item + '?' });
  return await context.step('ship', async () => ({ shipped: order.item, decision: decision.decision, comment: decision.comment }));
}`;

  it('finds a run waiting on an approval in the approvals list, approves it there, and shows its steps finished', async () => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure-durable-approval'));
    // Prepare: the run waits for its owner's approval.
    const script = await givenDurable(approvalScript);
    const executionId = await started(script.id, { item: 'bicycle' });
    const run = await openRun(executionId);
    await until(() => run.getByRole('status').filter({ hasText: 'Waiting in' }).textContent()).toContain('Waiting in "manager" for an approval');
    expect(await run.getByRole('listitem', { name: 'Step reserve' }).textContent()).toMatch(/reserve.*step.*succeeded/);
    await screenshot('32-run-waiting-for-approval');
    // Act: the navigation counts it, the approvals list shows it; approve with a comment.
    const entry = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: /^Approvals/ });
    await until(() => entry.textContent()).toMatch(/^Approvals\d+ pending$/);
    const before = Number((await entry.textContent())!.match(/\d+/)![0]);
    await entry.click();
    const item = page.getByRole('region', { name: `Approval manager of run ${executionId}` });
    await until(() => item.textContent()).toContain('Ship bicycle?');
    expect(await item.getByRole('link', { name: executionId }).getAttribute('href')).toBe(`#/runs/${executionId}`);
    await screenshot('31-approvals');
    await item.getByLabel('Comment').fill('paid in full');
    await item.getByRole('button', { name: 'Approve' }).click();
    await until(() => item.count()).toBe(0);
    await until(() => entry.textContent()).toBe(before === 1 ? 'Approvals' : `Approvals${before - 1} pending`);
    // Assess: the run's page shows every step finished and the run's output.
    const decisions = page.getByRole('status', { name: 'Decisions' });
    expect(await decisions.textContent()).toBe(`You approved "manager" of run ${executionId}.`);
    await decisions.getByRole('link', { name: executionId }).click();
    const steps = run.getByRole('list', { name: 'Steps' });
    await until(() => steps.getByRole('listitem').allTextContents(), 60_000).toEqual([
      expect.stringMatching(/^reserve.*step.*succeeded/),
      expect.stringMatching(/^manager.*approval.*succeeded/),
      expect.stringMatching(/^ship.*step.*succeeded/),
    ]);
    await steps.getByRole('listitem', { name: 'Step ship' }).getByText('Result').click();
    expect(JSON.parse((await run.getByLabel('Result of ship').textContent())!)).toEqual({ shipped: 'bicycle', decision: 'approve', comment: 'paid in full' });
    expect((await getRun(executionId)).status).toMatch(/^(completed|success)$/);
    await screenshot('33-run-steps-finished');
  }, 120_000);

  it("rejects from the run's own page, with the same buttons", async () => {
    onTestFailed(() => browser.screenshot('failure-durable-reject'));
    // Prepare
    const script = await givenDurable(approvalScript);
    const executionId = await started(script.id, { item: 'kayak' });
    const run = await openRun(executionId);
    const pending = run.getByRole('region', { name: 'Pending approval' });
    await until(() => pending.textContent()).toContain('Ship kayak?');
    // Act
    await pending.getByLabel('Comment').fill('out of stock');
    await pending.getByRole('button', { name: 'Reject' }).click();
    // Assess: the run goes on with the reject as its answer.
    await until(async () => (await getRun(executionId)).status, 60_000).toMatch(/^(completed|success)$/);
    expect((await getRun(executionId)).output).toEqual({ shipped: 'kayak', decision: 'reject', comment: 'out of stock' });
    await until(() => pending.count()).toBe(0);
  }, 120_000);

  it('shows a sleeping run with its wake-up time and cancels it', async () => {
    const { screenshot } = browser;
    onTestFailed(() => screenshot('failure-durable-cancel'));
    // Prepare
    const script = await givenDurable(`export async function handler(event, context) {
  await context.step('prepare', async () => 'ready');
  await context.wait('cool-down', { hours: 1 });
  return await context.step('finish', async () => 'done');
}`);
    const executionId = await started(script.id);
    const run = await openRun(executionId);
    const sleeping = run.getByRole('listitem', { name: 'Step cool-down' });
    await until(() => sleeping.textContent()).toMatch(/cool-down.*sleep.*sleeping until .*Wakes up/);
    const wakeAt = (await getRun(executionId)).steps.find((step: { name: string }) => step.name === 'cool-down').wakeAt as string;
    expect(Date.parse(wakeAt) - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(await run.getByRole('status').filter({ hasText: 'Sleeping in' }).textContent()).toContain('Sleeping in "cool-down" until');
    await screenshot('34-run-sleeping');
    // Act: cancel asks first.
    await run.getByRole('button', { name: 'Cancel the run' }).click();
    await run.getByRole('button', { name: 'Yes, cancel the run' }).click();
    // Assess
    await until(() => run.locator('.badge.status-cancelled').first().textContent()).toBe('cancelled');
    expect((await getRun(executionId)).status).toBe('cancelled');
    expect(await run.getByRole('button', { name: 'Cancel the run' }).count()).toBe(0);
    expect((await getRun(executionId)).steps.map((step: { name: string }) => step.name)).not.toContain('finish');
  }, 120_000);

  it("shows a resumed run's logs with where each invocation begins and the step of each line", async () => {
    onTestFailed(() => browser.screenshot('failure-durable-logs'));
    // Prepare
    const script = await givenDurable(`export async function handler(event, context) {
  await context.step('charge', async () => console.log('preparing refund for o-1'));
  await context.wait('pause', { seconds: 1 });
  await context.step('confirm', async () => console.log('STEP-SECOND-RAN'));
  console.log('refund done');
}`);
    const executionId = await started(script.id);
    await ended(executionId);
    // Act
    const run = await openRun(executionId);
    // Assess
    await until(() => run.getByLabel('Logs').textContent()).toContain('refund done');
    expect(await run.getByLabel('Logs').textContent()).toBe(
      'Invocation 1\n[charge] preparing refund for o-1\nInvocation 2\n[confirm] STEP-SECOND-RAN\nrefund done\n',
    );
    await browser.screenshot('36-run-logs-invocations');
  }, 120_000);

  it("shows a failed step's error behind its disclosure, and no cancel for an ended run", async () => {
    onTestFailed(() => browser.screenshot('failure-durable-error'));
    // Prepare
    const script = await givenDurable(`export async function handler(event, context) {
  await context.step('quote', async () => ({ amount: 12 }));
  return await context.step('charge', async () => { throw new Error('card declined'); });
}`);
    const executionId = await started(script.id);
    await ended(executionId);
    // Act
    const run = await openRun(executionId);
    const charge = run.getByRole('listitem', { name: 'Step charge' });
    await until(() => charge.textContent()).toMatch(/^charge.*step.*failed/);
    await charge.getByText('Error', { exact: true }).click();
    // Assess
    expect(await run.getByLabel('Error of charge').textContent()).toContain('card declined');
    expect(await run.getByLabel('Result of quote').isVisible()).toBe(false);
    expect(await run.getByRole('button', { name: 'Cancel the run' }).count()).toBe(0);
  }, 120_000);

  it('re-runs from a chosen step: the steps before it keep their results, the chosen one runs again', async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-durable-rerun'));
    // Prepare: a run whose steps draw random numbers.
    const script = await givenDurable(`export async function handler(event, context) {
  const first = await context.step('draw', async () => Math.random());
  const second = await context.step('stamp', async () => Math.random());
  return { first, second };
}`);
    const executionId = await started(script.id);
    await until(async () => (await getRun(executionId)).status, 60_000).toMatch(/^(completed|success)$/);
    const original = await getRun(executionId);
    const run = await openRun(executionId);
    // Act
    const rerun = run.getByRole('form', { name: 'Re-run' });
    await until(() => rerun.getByRole('option').allTextContents()).toEqual(['the start', 'step draw (step)', 'step stamp (step)']);
    await rerun.getByLabel('Re-run from').selectOption({ label: 'step stamp (step)' });
    await rerun.getByRole('button', { name: 'Re-run' }).click();
    // Assess: the console opens the new run, whose first step kept its result and whose second ran again.
    await until(() => page.url()).not.toContain(executionId);
    const newId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    const again = page.getByRole('region', { name: `Run ${newId}` });
    await until(() => again.getByRole('list', { name: 'Steps' }).getByRole('listitem').count(), 60_000).toBe(2);
    await until(async () => (await getRun(newId)).status, 60_000).toMatch(/^(completed|success)$/);
    const rerunOutput = (await getRun(newId)).output;
    expect(rerunOutput.first).toBe(original.output.first);
    expect(rerunOutput.second).not.toBe(original.output.second);
  }, 120_000);
});

describe("console: bulk replay from a script's page", () => {
  it('replays only the runs that match the status and time range, says how many and links them', async () => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure-replay'));
    // Prepare: two failed runs and one success.
    const script = await givenDeployed(api, owner, {
      name: uniqueName('flaky'),
      code: `export async function handler(event) {\n  if (event.data.fail) throw new Error('failed ' + event.data.n);\n  return { n: event.data.n };\n}\n`,
    });
    for (const data of [
      { fail: true, n: 1 },
      { fail: true, n: 2 },
      { fail: false, n: 3 },
    ])
      await execute(api, owner, script.id, data);
    const local = (ms: number) => {
      const at = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
      return at.toISOString().slice(0, 16);
    };
    await page.goto(`${api.baseUrl}/#/scripts/${encodeURIComponent(script.id)}`);
    const replay = page.getByRole('form', { name: 'Replay runs' });
    expect(await replay.textContent()).toContain('At most 100 runs per replay');
    // Act
    await replay.getByLabel('Status of the runs').selectOption('failed');
    await replay.getByLabel('Started from').fill(local(Date.now() - 10 * 60_000));
    await replay.getByLabel('Started until').fill(local(Date.now() + 10 * 60_000));
    await replay.getByRole('button', { name: 'Replay' }).click();
    // Assess: two new runs, each linked, each with a failed run's input.
    const replayed = replay.getByRole('status', { name: 'Replayed runs' });
    await until(() => replayed.getByRole('paragraph').textContent(), 60_000).toBe('Replayed 2 runs.');
    const ids = await replayed.getByRole('link').allTextContents();
    expect(ids).toHaveLength(2);
    const inputs = await Promise.all(
      ids.map(async (id) => {
        await until(async () => (await getRun(id)).status, 60_000).not.toBe('running');
        return (await getRun(id)).error?.message as string;
      }),
    );
    expect(inputs.sort()).toEqual([expect.stringContaining('failed 1'), expect.stringContaining('failed 2')]);
    await screenshot('35-replay');
    await replayed.getByRole('link', { name: ids[0] }).click();
    await until(() => page.getByRole('region', { name: `Run ${ids[0]}` }).count()).toBe(1);
  }, 120_000);
});
