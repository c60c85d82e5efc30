// The console's durable-run views in a real Chromium against the local platform: a run waiting on an approval found in
// the approvals list and approved, its steps on the run's timeline, cancel, re-run from a step, bulk replay, and the
// page an approval's signed link opens without a key.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { approvalService } from '../../functions/approvals/wiring.js';
import { type TestBrowser, launchBrowser, screenshotDir } from '../support/browser.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let owner: TestUser;
let approver: TestUser;
let browser: TestBrowser;
let runs = 0;

/** Waits for what the page shows, as a user would (no fixed sleeps). */
const until = <T>(read: () => Promise<T> | T, timeout = 20_000) => expect.poll(read, { timeout, interval: 100 });

beforeAll(async () => {
  [api, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  [owner, approver] = await Promise.all([api.givenUser(), api.givenUser()]);
  // The main tab is the owner's, signed in once: the key stays in its session storage across the URLs below.
  await browser.page.goto(`${api.baseUrl}/`);
  await browser.page.getByLabel('API key').fill(owner.apiKey);
  await browser.page.getByLabel('API key').press('Enter');
  await browser.page.getByText(`Signed in as ${owner.username}`).waitFor({ timeout: 20_000 });
});
afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

const signedPath = (approvalId: string, token: string) => `/api/sdk/v1/approvals/${approvalId}/signed?token=${token}`;
const tokenOf = (link: string) => new URL(link, 'http://console.test').hash.split('token=')[1]!;

/** An approval the approver is sent a link for, opened as the engine opens one for a run's `waitForApproval`. */
async function givenApprovalLink(message: string) {
  const run = { executionId: `exe_console_${runs++}`, scriptId: 'scr_console_approvals', userId: owner.userId, ownerId: owner.userId };
  const { approval, links } = await approvalService().request(run, 'ship', { approvers: [approver.username], message });
  return { approval, link: links[approver.userId]!, token: tokenOf(links[approver.userId]!) };
}

/** A tab of its own, with nothing signed in: what an approver who only has the link gets. */
async function openLink(link: string) {
  const page = await browser.context.newPage();
  await page.goto(`${api.baseUrl}${link}`);
  return page;
}

describe("console: an approval's signed link", () => {
  it('shows the approval without a key, decides it with a comment and shows the outcome, also after a reload', async () => {
    onTestFailed(() => browser.screenshot('failure-signed-link'));
    // Prepare
    const { approval, link, token } = await givenApprovalLink('Ship order 42 to Oslo?');
    const page = await openLink(link);
    try {
      // Assess: what is asked, for what, and until when, with no sign-in on the way.
      const region = page.getByRole('region', { name: 'Approval ship' });
      await until(() => region.textContent()).toContain('Ship order 42 to Oslo?');
      expect(await region.textContent()).toMatch(/Forscript scr_console_approvals.*Requested.*Expires/);
      expect(await page.getByLabel('API key').count()).toBe(0);
      await page.screenshot({ path: join(screenshotDir, '30-signed-approval.png'), fullPage: true });
      // Act
      await region.getByLabel('Comment').fill('carrier booked');
      await region.getByRole('button', { name: 'Approve' }).click();
      // Assess: the outcome on the page and in the platform.
      await until(() => region.getByRole('status').textContent()).toMatch(new RegExp(`approved by ${approver.username} at .*Comment: "carrier booked"`));
      expect((await api.request('GET', signedPath(approval.approvalId, token))).body.data).toMatchObject({
        status: 'approved',
        decision: 'approve',
        decidedBy: approver.username,
        comment: 'carrier booked',
      });
      await page.reload();
      await until(() => region.getByRole('status').textContent()).toContain(`approved by ${approver.username}`);
      expect(await region.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('refuses a second decision made through a page opened before the first, and keeps the first', async () => {
    onTestFailed(() => browser.screenshot('failure-signed-link-twice'));
    // Prepare: the same link open in two tabs; the first decides.
    const { approval, link, token } = await givenApprovalLink('Refund the customer?');
    const [first, second] = [await openLink(link), await openLink(link)];
    try {
      for (const page of [first, second]) await until(() => page.getByRole('button', { name: 'Reject' }).count()).toBe(1);
      await first.getByRole('button', { name: 'Reject' }).click();
      await until(() => first.getByRole('status').textContent()).toContain('This approval is rejected');
      // Act
      await second.getByLabel('Comment').fill('changed my mind');
      await second.getByRole('button', { name: 'Approve' }).click();
      // Assess: refused, and nothing changed.
      await until(() => second.getByRole('alert').textContent()).toMatch(/^CONFLICT: .*already rejected/);
      const stored = (await api.request('GET', signedPath(approval.approvalId, token))).body.data;
      expect(stored).toMatchObject({ status: 'rejected', decision: 'reject' });
      expect(stored.comment).toBeUndefined();
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 60_000);

  it('says so when the link is expired or wrong, and offers no decision', async () => {
    // Prepare
    const expired = await givenApprovalLink('Too late?');
    await approvalService().expire(expired.approval.approvalId);
    const valid = await givenApprovalLink('Guessed?');
    // Act
    const [late, guessed] = [await openLink(expired.link), await openLink(`/#/approve/${valid.approval.approvalId}?token=apv_guessed`)];
    try {
      // Assess
      await until(() => late.getByRole('status').textContent()).toContain('This approval is expired: no decision can be made any more.');
      await until(() => guessed.getByRole('alert').textContent()).toBe('This link is not valid: it may be mistyped, already used or expired.');
      for (const page of [late, guessed]) expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect((await api.request('GET', signedPath(valid.approval.approvalId, valid.token))).body.data.status).toBe('pending');
    } finally {
      await Promise.all([late.close(), guessed.close()]);
    }
  }, 60_000);
});

describe('console: approvals', () => {
  it('counts the pending approvals in the navigation, lists them and approves one with a comment', async () => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure-approvals'));
    // Prepare: the owner's own run asks the owner, its only approver.
    const run = { executionId: `exe_console_${runs++}`, scriptId: 'scr_console_approvals', userId: owner.userId, ownerId: owner.userId };
    const { approval } = await approvalService().request(run, 'publish', { message: 'Publish the weekly report?' });
    await page.goto(`${api.baseUrl}/#/approvals`);
    await page.reload();
    const entry = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: /^Approvals/ });
    await until(() => entry.textContent()).toMatch(/^Approvals\d+ pending$/);
    const before = Number((await entry.textContent())!.match(/\d+/)![0]);
    const item = page.getByRole('region', { name: `Approval publish of run ${run.executionId}` });
    await until(() => item.textContent()).toContain('Publish the weekly report?');
    expect(await item.getByRole('link', { name: run.executionId }).getAttribute('href')).toBe(`#/runs/${run.executionId}`);
    await screenshot('31-approvals');
    // Act
    await item.getByLabel('Comment').fill('numbers checked');
    await item.getByRole('button', { name: 'Approve' }).click();
    // Assess: the decision is stored, the item leaves the list and the count drops.
    await until(() => page.getByRole('status', { name: 'Decisions' }).textContent()).toBe(`You approved "publish" of run ${run.executionId}.`);
    await until(() => item.count()).toBe(0);
    await until(() => entry.textContent()).toBe(before === 1 ? 'Approvals' : `Approvals${before - 1} pending`);
    const listed = (await api.as(owner.apiKey).get('/api/sdk/v1/approvals?limit=100')).body.data;
    expect(listed.approvals.map((item: { approvalId: string }) => item.approvalId)).not.toContain(approval.approvalId);
    const decided = await api.as(owner.apiKey).post(`/api/sdk/v1/approvals/${approval.approvalId}`, { decision: 'reject' });
    expect(decided.body.error.message).toContain('already approved');
  }, 60_000);
});
