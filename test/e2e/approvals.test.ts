import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalService } from '../../functions/approvals/wiring.js';
import { eventScripts } from '../support/event-scripts.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let owner: TestUser;
let approver: TestUser;
let secondApprover: TestUser;
let stranger: TestUser;
let installer: TestUser;
let runs = 0;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, approver, secondApprover, stranger, installer] = await Promise.all([
    api.givenUser(),
    api.givenUser(),
    api.givenUser(),
    api.givenUser(),
    api.givenUser(),
  ]);
});
afterAll(() => api.stop());

/** A run of the owner's script (or of `runner`'s run of it) asking for an approval, as the durable engine does. */
function givenApproval(request: Record<string, unknown>, runner: TestUser = owner) {
  const run = { executionId: `exe_approvals_${runs++}`, scriptId: 'scr_approvals', userId: runner.userId, ownerId: owner.userId };
  return approvalService().request(run, 'ship it', request);
}

const pendingOf = async (user: TestUser) => (await api.as(user.apiKey).get('/api/sdk/v1/approvals?limit=100')).body.data as { approvals: any[]; count: number };
const pendingIds = async (user: TestUser) => (await pendingOf(user)).approvals.map((item) => item.approvalId as string);
const decide = (user: TestUser, approvalId: string, body: Record<string, unknown>) => api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, body);
const tokenOf = (link: string) => new URL(link, 'http://console.test').hash.split('token=')[1]!;
const signedPath = (approvalId: string, token: string) => `/api/sdk/v1/approvals/${approvalId}/signed?token=${token}`;

describe('approvals: listing and deciding', () => {
  it('lists a pending approval to each listed approver with the interface’s fields, and to no one else', async () => {
    // Prepare
    const { approval } = await givenApproval({ approvers: [approver.username, secondApprover.userId], message: 'Deploy to production?' });
    // Act
    const listed = await pendingOf(approver);
    // Assess
    expect(listed.approvals.find((item) => item.approvalId === approval.approvalId)).toEqual({
      approvalId: approval.approvalId,
      executionId: approval.executionId,
      scriptId: 'scr_approvals',
      name: 'ship it',
      message: 'Deploy to production?',
      approvers: [
        { userId: approver.userId, username: approver.username },
        { userId: secondApprover.userId, username: secondApprover.username },
      ],
      requestedAt: expect.any(String),
      expiresAt: expect.any(String),
      status: 'pending',
    });
    expect(listed.count).toBe(listed.approvals.length);
    expect(await pendingIds(secondApprover)).toContain(approval.approvalId);
    expect(await pendingIds(stranger)).not.toContain(approval.approvalId);
  });

  it('approves: the decision is recorded once and the approval leaves every inbox', async () => {
    // Prepare
    const { approval } = await givenApproval({ approvers: [approver.username, secondApprover.username] });
    // Act
    const response = await decide(approver, approval.approvalId, { decision: 'approve', comment: 'looks good' });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'approved', decision: 'approve', decidedBy: approver.username, comment: 'looks good' });
    expect(await pendingIds(approver)).not.toContain(approval.approvalId);
    expect(await pendingIds(secondApprover)).not.toContain(approval.approvalId);
  });

  it('rejects: a reject is a decision like any other', async () => {
    // Prepare
    const { approval } = await givenApproval({ approvers: [approver.username] });
    // Act
    const response = await decide(approver, approval.approvalId, { decision: 'reject' });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'rejected', decision: 'reject', decidedBy: approver.username });
  });

  it('refuses a second decision with CONFLICT and keeps the first', async () => {
    // Prepare
    const { approval, links } = await givenApproval({ approvers: [approver.username, secondApprover.username] });
    await decide(approver, approval.approvalId, { decision: 'approve' });
    // Act
    const second = await decide(secondApprover, approval.approvalId, { decision: 'reject' });
    // Assess
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');
    const read = await api.request('GET', signedPath(approval.approvalId, tokenOf(links[secondApprover.userId]!)));
    expect(read.body.data).toMatchObject({ status: 'approved', decidedBy: approver.username });
  });

  it('answers NOT_FOUND to a user who is not an approver, and changes nothing', async () => {
    // Prepare
    const { approval } = await givenApproval({ approvers: [approver.username] });
    // Act
    const response = await decide(stranger, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    expect(await pendingIds(approver)).toContain(approval.approvalId);
  });

  it('refuses self-approval when someone else is listed, and changes nothing', async () => {
    // Prepare
    const { approval } = await givenApproval({ approvers: [owner.username, approver.username] });
    // Act
    const response = await decide(owner, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect(await pendingIds(approver)).toContain(approval.approvalId);
  });

  it('lets the owner approve their own run when they are the only approver (the default)', async () => {
    // Prepare
    const { approval } = await givenApproval({});
    // Act
    const response = await decide(owner, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(approval.approvers).toEqual([{ userId: owner.userId, username: owner.username }]);
    expect(response.status).toBe(200);
    expect(response.body.data.status).toBe('approved');
  });

  it('refuses a bad decision with VALIDATION_ERROR naming the field', async () => {
    // Prepare
    const { approval } = await givenApproval({ approvers: [approver.username] });
    // Act
    const response = await decide(approver, approval.approvalId, { decision: 'maybe' });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'decision', value: 'maybe' } });
    expect(await pendingIds(approver)).toContain(approval.approvalId);
  });
});

describe('approvals: requests a run makes', () => {
  it('refuses approvers that do not exist, naming them, and creates nothing', async () => {
    // Prepare
    const before = await pendingIds(approver);
    // Act
    const request = givenApproval({ approvers: [approver.username, 'no-such-user-anywhere', 'usr_nobody'] });
    // Assess
    await expect(request).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'approvers', value: ['no-such-user-anywhere', 'usr_nobody'] } });
    expect(await pendingIds(approver)).toEqual(before);
  });

  it('refuses a list on which only the run’s own user could approve, when that user does not own the script', async () => {
    // Prepare
    const before = await pendingIds(installer);
    // Act
    const request = givenApproval({ approvers: [installer.username] }, installer);
    // Assess
    await expect(request).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'approvers' } });
    expect(await pendingIds(installer)).toEqual(before);
  });

  it('refuses a timeout past a year and a message past its limit', async () => {
    await expect(givenApproval({ timeoutSeconds: 366 * 24 * 3600 })).rejects.toMatchObject({ details: { field: 'timeoutSeconds' } });
    await expect(givenApproval({ message: 'x'.repeat(4001) })).rejects.toMatchObject({ details: { field: 'message' } });
  });
});

describe('approvals: the signed link', () => {
  it('reads and decides with the link’s token, once, as the approver it was sent to', async () => {
    // Prepare
    const { approval, links } = await givenApproval({ approvers: [approver.username, secondApprover.username], message: 'Refund 40 USD?' });
    const token = tokenOf(links[secondApprover.userId]!);
    expect(links[secondApprover.userId]).toBe(`/#/approve/${approval.approvalId}?token=${token}`);
    // Act
    const read = await api.request('GET', signedPath(approval.approvalId, token));
    const decided = await api.request('POST', signedPath(approval.approvalId, token), { body: { decision: 'approve', comment: 'ok' } });
    const again = await api.request('POST', signedPath(approval.approvalId, token), { body: { decision: 'reject' } });
    // Assess
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ approvalId: approval.approvalId, message: 'Refund 40 USD?', status: 'pending', approver: secondApprover.username });
    expect(decided.status).toBe(200);
    expect(decided.body.data).toMatchObject({ status: 'approved', decidedBy: secondApprover.username, comment: 'ok' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('refuses a wrong token, or one of another approval, with NOT_FOUND and changes nothing', async () => {
    // Prepare
    const { approval } = await givenApproval({ approvers: [approver.username] });
    const other = await givenApproval({ approvers: [approver.username] });
    const othersToken = tokenOf(other.links[approver.userId]!);
    // Act
    const wrong = await api.request('POST', signedPath(approval.approvalId, 'apv_guessed'), { body: { decision: 'approve' } });
    const borrowed = await api.request('POST', signedPath(approval.approvalId, othersToken), { body: { decision: 'approve' } });
    // Assess
    expect(wrong.status).toBe(404);
    expect(borrowed.status).toBe(404);
    expect(await pendingIds(approver)).toEqual(expect.arrayContaining([approval.approvalId, other.approval.approvalId]));
  });

  it('holds the self-approval rule for a link too', async () => {
    // Prepare
    const { approval, links } = await givenApproval({ approvers: [owner.username, approver.username] });
    // Act
    const response = await api.request('POST', signedPath(approval.approvalId, tokenOf(links[owner.userId]!)), { body: { decision: 'approve' } });
    // Assess
    expect(response.status).toBe(403);
    expect(await pendingIds(approver)).toContain(approval.approvalId);
  });
});

describe('approvals: platform.approval.requested', () => {
  it('reaches a subscription of the run’s user, with the approval and each approver’s link', async () => {
    // Prepare
    const scripts = eventScripts(api);
    const scriptId = await scripts.givenScript(owner);
    const subscribed = await api.as(owner.apiKey).post(`/api/sdk/v1/scripts/${scriptId}/subscriptions`, { eventType: 'platform.approval.requested' });
    expect(subscribed.status).toBe(201);
    // Act
    const { approval, links } = await givenApproval({ approvers: [approver.username], message: 'Pay the invoice?' });
    // Assess
    const [run] = await scripts.waitForRuns(owner, scriptId, 1);
    expect(run!.result?.trigger).toMatchObject({ type: 'event', event: 'platform.approval.requested' });
    expect(run!.result?.data).toMatchObject({
      type: 'platform.approval.requested',
      userId: owner.userId,
      data: {
        approvalId: approval.approvalId,
        message: 'Pay the invoice?',
        approvers: [{ userId: approver.userId, username: approver.username, approvalUrl: links[approver.userId] }],
      },
    });
    const sample = JSON.parse(readFileSync(new URL('../../events/platform/platform.approval.requested.json', import.meta.url), 'utf8'));
    expect(Object.keys(run!.result!.data.data).sort()).toEqual(Object.keys(sample.data).sort());
  });

  it('cannot be published by a user', async () => {
    const response = await api.as(owner.apiKey).post('/api/sdk/v1/events', { type: 'platform.approval.requested' });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('type');
  });
});
