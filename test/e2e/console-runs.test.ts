// The console's run pages in a real Chromium against the local platform: a flow run opened from the runs list with its
// script run as a linked child, a failed run's reason in the header, and a cancelled run that reads cancelled.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { type TestBrowser, launchBrowser } from '../support/browser.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform, uniqueName } from '../support/platform.js';
import { execute, givenDeployed } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let browser: TestBrowser;

/** Waits for what the page shows, as a user would (no fixed sleeps). */
const until = <T>(read: () => Promise<T> | T, timeout = 20_000) => expect.poll(read, { timeout, interval: 100 });

beforeAll(async () => {
  [api, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  owner = await api.givenUser();
  await browser.page.goto(`${api.baseUrl}/`);
  await browser.page.getByLabel('API key').fill(owner.apiKey);
  await browser.page.getByLabel('API key').press('Enter');
  await browser.page.getByText(`Signed in as ${owner.username}`).waitFor({ timeout: 20_000 });
});
afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

async function openRun(executionId: string) {
  await browser.page.goto(`${api.baseUrl}/#/runs/${encodeURIComponent(executionId)}`);
  await browser.page.reload();
  return browser.page.getByRole('region', { name: `Run ${executionId}` });
}
const header = (run: ReturnType<TestBrowser['page']['getByRole']>) => run.getByRole('definition');

describe('console: run pages', () => {
  it("opens a flow run's page from the runs list, its script run linked as its child and back to its parent", async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-flow-run-page'));
    // Prepare
    const script = await givenDeployed(api, owner, { name: uniqueName('flowed') });
    const flowId = (await givenTimeFlow(api, owner, script.id)).id;
    await api.as(owner.apiKey).post(flowsPath('runFlow'), { flowId });
    const listed = (await api.as(owner.apiKey).get('/api/sdk/v1/executions')).body.data.executions as Array<Record<string, string>>;
    const flowRun = listed.find((item) => item.kind === 'flow')!.executionId;
    const child = listed.find((item) => item.parentExecutionId === flowRun)!.executionId;
    await page.goto(`${api.baseUrl}/#/runs`);
    // Act
    await page.getByRole('table').getByRole('link', { name: flowRun }).click();
    // Assess
    const run = page.getByRole('region', { name: `Run ${flowRun}` });
    await until(() => header(run).first().textContent()).toBe('flow run');
    const children = run.getByRole('list', { name: 'Child runs' });
    await until(() => children.getByRole('link').allTextContents()).toEqual([child]);
    await children.getByRole('link', { name: child }).click();
    const childPage = page.getByRole('region', { name: `Run ${child}` });
    await until(() => childPage.getByRole('region', { name: 'Family' }).getByRole('link', { name: flowRun }).count()).toBe(1);
    await until(() => header(childPage).first().textContent()).toBe('script run');
  }, 120_000);

  it("shows a failed run's reason in its header", async () => {
    onTestFailed(() => browser.screenshot('failure-failed-run-page'));
    // Prepare
    const script = await givenDeployed(api, owner, {
      name: uniqueName('failing'),
      code: 'export async function handler() { throw new Error("card declined") }',
    });
    const executionId = (await execute(api, owner, script.id)).body.data.executionId as string;
    // Act
    const run = await openRun(executionId);
    // Assess
    await until(() => run.locator('.badge.status-failed').first().textContent()).toBe('failed');
    expect(await run.locator('.run-reason').textContent()).toMatch(/^\w+: .*card declined/);
  }, 120_000);

  it('reads cancelled for a cancelled run, in its page and in the runs list', async () => {
    const { page } = browser;
    onTestFailed(() => browser.screenshot('failure-cancelled-run-page'));
    // Prepare: a durable run sleeping an hour, cancelled.
    const script = await givenDeployed(api, owner, {
      name: uniqueName('sleeper'),
      code: "export async function handler(event, context) { await context.wait('later', { hours: 1 }); return 1 }",
      config: { durable: true },
    });
    const executionId = (await execute(api, owner, script.id)).body.data.executionId as string;
    await api.as(owner.apiKey).post(`/api/sdk/v1/executions/${executionId}/cancel`);
    // Act
    const run = await openRun(executionId);
    // Assess
    await until(() => run.locator('dd .badge').first().textContent()).toBe('cancelled');
    await page.goto(`${api.baseUrl}/#/runs`);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: executionId }) });
    await until(() => row.locator('.badge').textContent()).toBe('cancelled');
  }, 120_000);
});
