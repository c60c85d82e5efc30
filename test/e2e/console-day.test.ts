// A day of ordinary use of the web console in a real Chromium against the local platform: the home dashboard, create
// and run a script, follow a durable run to its approval and approve it from the inbox, find a failed flow run from
// the dashboard and read its reason, see a payment credited at the owner's 90%, search, keys, and pages at 420 px.
// CONSOLE_SHOTS=1 (`npm run console:shots`) also writes every page at 1400 and 420 px to test/.screenshots/console/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { type TestBrowser, launchBrowser, screenshotDir } from '../support/browser.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { type Seller, givenSeller, paidCalls } from '../support/payments.js';
import { type TestApi, startTestPlatform, uniqueName } from '../support/platform.js';
import { type Upstream, json, startUpstream } from '../support/resources.js';
import { execute, givenDeployed } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let seller: Seller;
let browser: TestBrowser;

/** Waits for what the page shows, as a user would (no fixed sleeps). */
const until = <T>(read: () => Promise<T> | T, timeout = 30_000) => expect.poll(read, { timeout, interval: 100 });

const approvalCode = `export async function handler(event, context) {
  const order = await context.step('reserve', async () => ({ item: event.data.item }));
  const decision = await context.waitForApproval('manager', { message: 'Ship ' + order.item + '?' });
  return { shipped: order.item, decision: decision.decision };
}`;

beforeAll(async () => {
  // Tables of its own: the payout sweep of a paid call would take up other files' owed entries.
  [api, upstream, browser] = await Promise.all([startTestPlatform({ ownTables: true }), startUpstream(), launchBrowser()]);
  upstream.respond((request, response) => json(response, 200, { forecast: 'sunny', path: request.url }));
  seller = await givenSeller(api, upstream, 0.01);
  await browser.page.setViewportSize({ width: 1400, height: 900 });
  await browser.page.goto(`${api.baseUrl}/`);
  await browser.page.getByLabel('API key').fill(seller.user.apiKey);
  await browser.page.getByLabel('API key').press('Enter');
  await browser.page.getByText(`Signed in as ${seller.user.username}`).waitFor({ timeout: 30_000 });
});
afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  await api?.stop();
});

const region = (name: string) => browser.page.getByRole('region', { name, exact: true });
const open = async (hash: string) => {
  await browser.page.goto(`${api.baseUrl}/${hash}`);
  await browser.page.getByRole('heading', { level: 1 }).waitFor();
};
const getRun = async (executionId: string) => (await api.as(seller.user.apiKey).get(`/api/sdk/v1/executions/${executionId}`)).body.data;

describe('console: a day of use', () => {
  it('lands on the home dashboard, creates and runs a script, and shows its configuration, result tree and recent runs', async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-day-script'));
    // Assess: signed in, the landing page is the dashboard.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Home');
    await until(() => region('Runs today').textContent()).toMatch(/^Runs today0/);
    // Act: create a script from the starter code, deploy and run it.
    await page.getByRole('navigation', { name: 'Quick links' }).getByRole('link', { name: 'New script' }).click();
    const create = page.getByRole('form', { name: 'Create a script' });
    const name = uniqueName('greeter');
    await create.getByLabel('Name', { exact: true }).fill(name);
    await until(() => create.locator('.cm-content').count()).toBe(1);
    // The editor spans the form, not a fixed part of it.
    const [editor, form] = await Promise.all([create.locator('.editor').boundingBox(), create.boundingBox()]);
    expect(editor!.width).toBeGreaterThan(form!.width * 0.9);
    await create.getByRole('button', { name: 'Create script' }).click();
    await page.getByRole('button', { name: 'Deploy version 1 (1.0.0)' }).click();
    await until(() => page.getByText('draft, deployed version 1 (1.0.0)', { exact: true }).count()).toBeGreaterThan(0);
    await page.getByRole('form', { name: 'Run the script' }).getByLabel('Input data (JSON)').fill('{"city": "Oslo", "days": [1, 2]}');
    await page.getByRole('button', { name: 'Run now' }).click();
    // Assess: the result as a tree with its keys, not one line of JSON; the configuration; the run in recent runs.
    const output = page.getByRole('region', { name: 'Output' });
    await until(() => output.locator('.json-key').allTextContents()).toEqual(['success: ', 'got: ', 'city: ', 'days: ', '0: ', '1: ']);
    expect(await output.getByRole('button', { name: 'Copy JSON' }).count()).toBe(1);
    const settings = await region('Configuration').textContent();
    expect(settings).toContain('DurablenoTimeout30 s');
    expect(settings).toContain('Concurrencythe platform’s limit per script');
    const recent = region('Recent runs').getByRole('row');
    await until(() => recent.count()).toBe(2);
    expect(await recent.nth(1).textContent()).toMatch(/completedmanual/);
  }, 120_000);

  it('follows a durable run until its approval and approves it from the inbox reached with the keyboard', async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-day-approval'));
    // Prepare
    const script = await givenDeployed(api, seller.user, { name: uniqueName('shipper'), code: approvalCode, config: { durable: true } });
    const executionId = (await execute(api, seller.user, script.id, { item: 'bicycle' })).body.data.executionId as string;
    await open(`#/runs/${executionId}`);
    await until(() => page.getByRole('status').filter({ hasText: 'Waiting in' }).textContent()).toContain('Waiting in "manager" for an approval');
    // Act: g then a opens the inbox; approve the row without a comment.
    await page.locator('body').press('g');
    await page.locator('body').press('a');
    const row = page.getByRole('region', { name: `Approval manager of run ${executionId}` });
    await until(() => row.textContent()).toContain('Ship bicycle?');
    await row.getByRole('button', { name: 'Approve' }).click();
    // Assess
    await until(() => row.count()).toBe(0);
    await until(async () => (await getRun(executionId)).status, 60_000).toBe('completed');
    expect((await getRun(executionId)).output).toEqual({ shipped: 'bicycle', decision: 'approve' });
  }, 120_000);

  it("finds a failed flow run on the dashboard, reads its reason on the run's page, and lists the trigger as one run", async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-day-flow'));
    // Prepare
    const script = await givenDeployed(api, seller.user, {
      name: uniqueName('charger'),
      code: 'export async function handler() { throw new Error("card declined") }',
    });
    const flow = await givenTimeFlow(api, seller.user, script.id, { title: 'Nightly charge' });
    await api.as(seller.user.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    const listed = () => api.as(seller.user.apiKey).get(`/api/sdk/v1/executions?flowId=${flow.id}`);
    await until(
      async () => ((await listed()).body.data.executions as Array<{ kind: string; status: string }>).find((run) => run.kind === 'flow')?.status,
      60_000,
    ).toBe('failed');
    const flowRun = ((await listed()).body.data.executions as Array<{ kind: string; executionId: string }>).find((run) => run.kind === 'flow')!.executionId;
    // Act
    await open('#/home');
    const failures = region('Recent failures');
    await until(() => failures.getByRole('link', { name: flowRun }).count()).toBe(1);
    expect(
      await failures
        .getByRole('listitem')
        .filter({ has: page.getByRole('link', { name: flowRun }) })
        .textContent(),
    ).toContain('flow Nightly charge');
    await failures.getByRole('link', { name: flowRun }).click();
    // Assess: the reason on the run's page; in Runs the trigger is one row, its script run a child.
    await until(() => page.locator('.run-reason').textContent()).toMatch(/card declined/);
    await open('#/runs');
    const rows = page.getByRole('table').getByRole('row').filter({ hasText: 'Nightly charge' });
    await until(() => rows.count()).toBe(1);
  }, 120_000);

  it("credits a payment at the owner's 90% in the payments table and on the dashboard, in one money format", async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-day-payment'));
    // Prepare: one paid call of 0.01 USDC.
    await paidCalls(api, seller, 1);
    // Act
    await open('#/usage');
    // Assess
    const payments = page.getByRole('table', { name: 'Payments received, newest first' });
    await until(() => payments.getByRole('row').count()).toBe(2);
    const cells = await payments.getByRole('row').nth(1).getByRole('cell').allTextContents();
    expect(cells.slice(4)).toEqual(['0.01 USDC', '0.009 USDC', expect.stringMatching(/^(pending|confirmed)$/)]);
    expect(await page.getByRole('table', { name: 'Your resources' }).textContent()).toMatch(/0\.009 USDC.*no ratings/);
    expect(await page.locator('.chart').first().textContent()).not.toContain('--');
    await open('#/home');
    await until(() => region('Money today').textContent()).toContain('Revenue (net)0.009 USDC from 1 payment');
  }, 120_000);

  it('searches scripts by name and a run by id, and keeps every page within 420 px', async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-day-search'));
    // Prepare
    const script = await givenDeployed(api, seller.user, { name: uniqueName('findme') });
    const executionId = (await execute(api, seller.user, script.id)).body.data.executionId as string;
    // Act: / reaches the search box.
    await open('#/home');
    await page.locator('body').press('/');
    await page.keyboard.type('findme');
    await page.keyboard.press('Enter');
    // Assess
    await until(() => region('Scripts').getByRole('link').allTextContents()).toEqual([expect.stringMatching(/^findme-/)]);
    await page.getByRole('searchbox').fill(executionId);
    await page.getByRole('searchbox').press('Enter');
    await until(() => region('Run').getByRole('link', { name: executionId }).count()).toBe(1);
    // At 420 px nothing makes the page scroll sideways.
    await page.setViewportSize({ width: 420, height: 900 });
    try {
      for (const hash of ['#/home', '#/runs', `#/scripts/${script.id}`, '#/approvals', '#/usage', '#/flows', '#/marketplace']) {
        await open(hash);
        await page.waitForLoadState('networkidle');
        expect({ hash, width: await page.evaluate('document.documentElement.scrollWidth') }).toEqual({ hash, width: 420 });
      }
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  }, 120_000);

  it.runIf(process.env.CONSOLE_SHOTS)(
    'writes a screenshot of every page at 1400 and 420 px',
    async () => {
      const { page } = browser;
      const folder = join(screenshotDir, 'console');
      mkdirSync(folder, { recursive: true });
      const scripts = (await api.as(seller.user.apiKey).post('/api/sdk/v1/scripts/listScripts', {})).body.data.scripts as Array<{ id: string; name: string }>;
      const shipper = scripts.find((script) => script.name.startsWith('shipper'))!;
      const waiting = (await execute(api, seller.user, shipper.id, { item: 'kayak' })).body.data.executionId as string;
      const runs = (await api.as(seller.user.apiKey).get('/api/sdk/v1/executions?status=failed&limit=1')).body.data.executions as Array<{
        executionId: string;
      }>;
      const flows = (await api.as(seller.user.apiKey).post(flowsPath('searchFlows'), { limit: 1 })).body.data.flows as Array<{ id: string }>;
      const pages: [string, string][] = [
        ['home', '#/home'],
        ['marketplace', '#/marketplace'],
        ['scripts', '#/scripts'],
        ['script-new', '#/scripts/new'],
        ['script', `#/scripts/${shipper.id}`],
        ['runs', '#/runs'],
        ['run-failed', `#/runs/${runs[0]!.executionId}`],
        ['run-waiting', `#/runs/${waiting}`],
        ['approvals', '#/approvals'],
        ['flows', '#/flows'],
        ['flow', `#/flows/${flows[0]!.id}`],
        ['documents', '#/documents'],
        ['usage', '#/usage'],
        ['templates', '#/templates'],
        ['agents', '#/agents'],
        ['search', '#/search/shipper'],
      ];
      for (const width of [1400, 420]) {
        await page.setViewportSize({ width, height: 900 });
        for (const [name, hash] of pages) {
          await open(hash);
          await page.waitForLoadState('networkidle');
          await until(() =>
            page
              .getByRole('status')
              .filter({ has: page.locator('progress') })
              .count(),
          ).toBe(0);
          await page.screenshot({ path: join(folder, `${name}-${width}.png`), fullPage: true });
        }
      }
    },
    300_000,
  );
});
