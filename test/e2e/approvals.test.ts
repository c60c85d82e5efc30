// waitForApproval end to end: real durable scripts in sandboxed node and python workers wait for a decision made
// over the API or a signed link; the approval rules (listed approvers, no self-approval, one decision, expiry) hold.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approvalService } from '../../functions/app/approvals/wiring.js';
import { eventScripts } from '../support/event-scripts.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { durableRuns } from '../support/durable-runs.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let approver: TestUser;
let secondApprover: TestUser;
let stranger: TestUser;
let installer: TestUser;
const scriptIds: Record<string, string> = {};
let getExecution: ReturnType<typeof durableRuns>['getExecution'];
let waitForStatus: ReturnType<typeof durableRuns>['waitForStatus'];

const nodeAsker = `export async function handler(event, context) {
  try {
    return { answer: await context.waitForApproval('ship', event.data.request) };
  } catch (error) {
    return { caught: error.code, message: error.message };
  }
}`;

const pythonAsker = `def handler(event, context):
    try:
        return {"answer": context.wait_for_approval("ship", **event["data"]["request"])}
    except Exception as error:
        return {"caught": getattr(error, "code", None), "message": str(error)}
`;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, approver, secondApprover, stranger, installer] = await Promise.all([
    api.givenUser(),
    api.givenUser(),
    api.givenUser(),
    api.givenUser(),
    api.givenUser(),
  ]);
  const [node, python] = await Promise.all([
    givenDeployed(api, owner, { code: nodeAsker, config: { durable: true } }),
    givenDeployed(api, owner, { runtime: 'python3.11', code: pythonAsker, config: { durable: true } }),
  ]);
  scriptIds.node = node.id;
  scriptIds.python = python.id;
  ({ getExecution, waitForStatus } = durableRuns(api, owner));
});
afterAll(() => api.stop());

const pendingOf = async (user: TestUser) => (await api.as(user.apiKey).get('/api/sdk/v1/approvals?limit=100')).body.data as { approvals: any[]; count: number };
const pendingIds = async (user: TestUser) => (await pendingOf(user)).approvals.map((item) => item.approvalId as string);
const decide = (user: TestUser, approvalId: string, body: Record<string, unknown>) => api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, body);
const tokenOf = (link: string) => new URL(link).hash.split('token=')[1]!;
const signedPath = (approvalId: string, token: string) => `/api/sdk/v1/approvals/${approvalId}/signed?token=${token}`;

/** Starts the script's run asking with `request`; answers the run and its approval once the run waits for it. */
async function givenWaitingRun(request: Record<string, unknown>, runtime: 'node' | 'python' = 'node') {
  const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: scriptIds[runtime], data: { request } });
  expect(started.status).toBe(202);
  const { executionId } = started.body.data;
  await waitForStatus(executionId, 'waiting');
  const firstApprover = [approver, secondApprover, owner].find((user) => JSON.stringify(request.approvers ?? [owner.username]).includes(user.username))!;
  const approval = await vi.waitFor(
    async () => {
      const found = (await pendingOf(firstApprover)).approvals.find((item) => item.executionId === executionId);
      expect(found).toBeDefined();
      return found;
    },
    { timeout: 10_000, interval: 100 },
  );
  return { executionId, approval };
}

describe('approvals: a run waits for a decision', () => {
  it.each(['node', 'python'] as const)('%s: approved, the run continues with the decision', async (runtime) => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun(
      { approvers: [approver.username, secondApprover.userId], message: 'Deploy to production?' },
      runtime,
    );
    // Act
    const response = await decide(approver, approval.approvalId, { decision: 'approve', comment: 'looks good' });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'approved', decision: 'approve', decidedBy: approver.username, comment: 'looks good' });
    const finished = await waitForStatus(executionId, 'completed');
    expect(finished.output.answer).toEqual({ decision: 'approve', by: approver.username, comment: 'looks good', decidedAt: response.body.data.decidedAt });
    expect(finished.steps.map((step: { name: string; type: string; status: string }) => [step.name, step.type, step.status])).toEqual([
      ['ship', 'approval', 'succeeded'],
    ]);
    expect(await pendingIds(secondApprover)).not.toContain(approval.approvalId);
  });

  it('lists the waiting approval to each listed approver with the interface’s fields, and to no one else', async () => {
    // Prepare / Act
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username, secondApprover.userId], message: 'Refund?' });
    // Assess
    expect(approval).toEqual({
      approvalId: expect.stringMatching(/^apr_/),
      executionId,
      scriptId: scriptIds.node,
      name: 'ship',
      message: 'Refund?',
      approvers: [
        { userId: approver.userId, username: approver.username },
        { userId: secondApprover.userId, username: secondApprover.username },
      ],
      requestedAt: expect.any(String),
      expiresAt: expect.any(String),
      status: 'pending',
    });
    expect(await pendingIds(secondApprover)).toContain(approval.approvalId);
    expect(await pendingIds(stranger)).not.toContain(approval.approvalId);
  });

  it('rejected: the run gets the reject as an answer, not an error', async () => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username] });
    // Act
    const response = await decide(approver, approval.approvalId, { decision: 'reject' });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'rejected', decision: 'reject' });
    const finished = await waitForStatus(executionId, 'completed');
    expect(finished.output.answer).toMatchObject({ decision: 'reject', by: approver.username, comment: null });
  });

  it.each(['node', 'python'] as const)('%s: timed out, the code catches TIMEOUT and the approval is expired', async (runtime) => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username], timeout: { seconds: 2 } }, runtime);
    // Act
    const finished = await waitForStatus(executionId, 'completed');
    const late = await decide(approver, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(finished.output.caught).toBe('TIMEOUT');
    expect(late.status).toBe(409);
    expect(await pendingIds(approver)).not.toContain(approval.approvalId);
  });

  it('refuses a second decision with CONFLICT and keeps the first', async () => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username, secondApprover.username] });
    await decide(approver, approval.approvalId, { decision: 'approve' });
    // Act
    const second = await decide(secondApprover, approval.approvalId, { decision: 'reject' });
    // Assess
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');
    const finished = await waitForStatus(executionId, 'completed');
    expect(finished.output.answer).toMatchObject({ decision: 'approve', by: approver.username });
  });

  it('answers NOT_FOUND to a user who is not an approver, and the run still waits', async () => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username] });
    // Act
    const response = await decide(stranger, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    expect((await getExecution(executionId)).status).toBe('waiting');
    expect(await pendingIds(approver)).toContain(approval.approvalId);
  });

  it('refuses self-approval when someone else is listed, and the run still waits', async () => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({ approvers: [owner.username, approver.username] });
    // Act
    const response = await decide(owner, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect((await getExecution(executionId)).status).toBe('waiting');
    expect(await pendingIds(approver)).toContain(approval.approvalId);
  });

  it('lets the owner approve their own run when they are the only approver (the default)', async () => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({});
    // Act
    const response = await decide(owner, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(approval.approvers).toEqual([{ userId: owner.userId, username: owner.username }]);
    expect(response.status).toBe(200);
    expect((await waitForStatus(executionId, 'completed')).output.answer.by).toBe(owner.username);
  });

  it('refuses a bad decision with VALIDATION_ERROR naming the field, and the run still waits', async () => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username] });
    // Act
    const response = await decide(approver, approval.approvalId, { decision: 'maybe' });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'decision', value: 'maybe' } });
    expect((await getExecution(executionId)).status).toBe('waiting');
  });
});

describe('approvals: decisions that reach no waiting run', () => {
  it('refuses a decision on a cancelled run with CONFLICT, and the run stays cancelled', async () => {
    // Prepare
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username] });
    const cancelled = await api.as(owner.apiKey).post(`/api/sdk/v1/executions/${executionId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    // Act
    const response = await decide(approver, approval.approvalId, { decision: 'approve' });
    // Assess
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect((await getExecution(executionId)).status).toBe('cancelled');
  });

  it('holds the self-approval rule for a signed link too', async () => {
    // Prepare
    const links = new Map<string, string>();
    const tap = await subscribeToApprovalRequests(links);
    const { executionId, approval } = await givenWaitingRun({ approvers: [owner.username, approver.username] });
    const ownersLink = await vi.waitFor(() => links.get(`${approval.approvalId}:${owner.userId}`)!, { timeout: 10_000, interval: 100 });
    tap();
    // Act
    const response = await api.request('POST', signedPath(approval.approvalId, tokenOf(ownersLink)), { body: { decision: 'approve' } });
    // Assess
    expect(response.status).toBe(403);
    expect((await getExecution(executionId)).status).toBe('waiting');
  });
});

describe('approvals: requests refused at the call', () => {
  it.each(['node', 'python'] as const)('%s: approvers that do not exist are named in the error the code catches, and nothing is created', async (runtime) => {
    // Prepare
    const before = await pendingIds(approver);
    // Act
    const run = await api
      .as(owner.apiKey)
      .post(sdk('executeScript'), { scriptId: scriptIds[runtime], data: { request: { approvers: [approver.username, 'no-such-user-anywhere'] } } });
    // Assess
    expect(run.status).toBe(200);
    expect(run.body.data.output.caught).toBe('APPROVER_UNAVAILABLE');
    expect(run.body.data.output.message).toContain('cannot ask no-such-user-anywhere for this approval');
    expect(await pendingIds(approver)).toEqual(before);
  });

  it('names every approver that is no one, as APPROVER_UNAVAILABLE on approvers', async () => {
    // Act
    const request = approvalService().request({ executionId: 'exe_never', scriptId: scriptIds.node!, userId: owner.userId, ownerId: owner.userId }, 'ship', {
      approvers: [approver.username, 'no-such-user-anywhere', 'usr_nobody'],
    });
    // Assess
    await expect(request).rejects.toMatchObject({
      code: 'APPROVER_UNAVAILABLE',
      details: { field: 'approvers', value: ['no-such-user-anywhere', 'usr_nobody'] },
    });
  });

  it('refuses a list on which only the run’s own user could approve, when that user does not own the script', async () => {
    // Prepare
    const before = await pendingIds(installer);
    // Act
    const request = approvalService().request(
      { executionId: 'exe_never', scriptId: scriptIds.node!, userId: installer.userId, ownerId: owner.userId },
      'ship',
      { approvers: [installer.username] },
    );
    // Assess
    await expect(request).rejects.toMatchObject({ code: 'APPROVER_UNAVAILABLE', details: { field: 'approvers', value: [installer.username] } });
    expect(await pendingIds(installer)).toEqual(before);
  });

  it('refuses a timeout past a year and a message past its limit', async () => {
    const run = { executionId: 'exe_never', scriptId: scriptIds.node!, userId: owner.userId, ownerId: owner.userId };
    await expect(approvalService().request(run, 'ship', { timeout: { days: 366 } })).rejects.toMatchObject({ details: { field: 'timeout' } });
    await expect(approvalService().request(run, 'ship', { message: 'x'.repeat(4001) })).rejects.toMatchObject({ details: { field: 'message' } });
  });
});

describe('approvals: the signed link', () => {
  it('reads and decides with the link’s token, once, as the approver it was sent to', async () => {
    // Prepare
    const links = new Map<string, string>();
    const tap = await subscribeToApprovalRequests(links);
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username, secondApprover.username], message: 'Refund 40 USD?' });
    const link = await vi.waitFor(() => links.get(`${approval.approvalId}:${secondApprover.userId}`)!, { timeout: 10_000, interval: 100 });
    const token = tokenOf(link);
    // Act
    const read = await api.request('GET', signedPath(approval.approvalId, token));
    const decided = await api.request('POST', signedPath(approval.approvalId, token), { body: { decision: 'approve', comment: 'ok' } });
    const again = await api.request('POST', signedPath(approval.approvalId, token), { body: { decision: 'reject' } });
    // Assess
    tap();
    expect(link).toBe(`${api.baseUrl}/#/approve/${approval.approvalId}?token=${token}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ approvalId: approval.approvalId, message: 'Refund 40 USD?', status: 'pending', approver: secondApprover.username });
    expect(decided.status).toBe(200);
    expect(decided.body.data).toMatchObject({ status: 'approved', decidedBy: secondApprover.username, comment: 'ok' });
    expect(again.status).toBe(409);
    expect((await waitForStatus(executionId, 'completed')).output.answer.by).toBe(secondApprover.username);
  });

  it('refuses a wrong token, or one of another approval, with NOT_FOUND and the run still waits', async () => {
    // Prepare
    const links = new Map<string, string>();
    const tap = await subscribeToApprovalRequests(links);
    const first = await givenWaitingRun({ approvers: [approver.username] });
    const other = await givenWaitingRun({ approvers: [approver.username] });
    const othersLink = await vi.waitFor(() => links.get(`${other.approval.approvalId}:${approver.userId}`)!, { timeout: 10_000, interval: 100 });
    tap();
    // Act
    const wrong = await api.request('POST', signedPath(first.approval.approvalId, 'apv_guessed'), { body: { decision: 'approve' } });
    const borrowed = await api.request('POST', signedPath(first.approval.approvalId, tokenOf(othersLink)), { body: { decision: 'approve' } });
    // Assess
    expect(wrong.status).toBe(404);
    expect(borrowed.status).toBe(404);
    expect((await getExecution(first.executionId)).status).toBe('waiting');
  });
});

/** The links of `platform.approval.requested` as the bus carries them (each in its approver's own event), by `<approvalId>:<approver userId>`. */
async function subscribeToApprovalRequests(links: Map<string, string>): Promise<() => void> {
  const { inProcessBus } = await import('../../functions/adapters/local/event-bus.js');
  return inProcessBus.subscribe(async (event) => {
    if (event.type !== 'platform.approval.requested') return;
    const data = event.data as { approvalId: string; approvers: Array<{ userId: string; approvalUrl?: string }> };
    for (const { userId, approvalUrl } of data.approvers) if (approvalUrl) links.set(`${data.approvalId}:${userId}`, approvalUrl);
  });
}

describe('approvals: platform.approval.requested', () => {
  it('reaches a subscription of the run’s user, with the approval and no approver’s link', async () => {
    // Prepare
    const scripts = eventScripts(api);
    const listenerId = await scripts.givenScript(owner);
    const subscribed = await api.as(owner.apiKey).post(`/api/sdk/v1/scripts/${listenerId}/subscriptions`, { eventType: 'platform.approval.requested' });
    expect(subscribed.status).toBe(201);
    // Act
    const { executionId, approval } = await givenWaitingRun({ approvers: [approver.username], message: 'Pay the invoice?' });
    // Assess
    const runs = await scripts.waitForRuns(owner, listenerId, 1);
    const delivered = runs.find((run) => run.result?.data?.data?.approvalId === approval.approvalId)!;
    expect(delivered.result?.trigger).toMatchObject({ type: 'event', event: 'platform.approval.requested' });
    expect(delivered.result?.data).toMatchObject({
      type: 'platform.approval.requested',
      userId: owner.userId,
      data: {
        approvalId: approval.approvalId,
        executionId,
        message: 'Pay the invoice?',
      },
    });
    expect(delivered.result?.data.data.approvers).toEqual([{ userId: approver.userId, username: approver.username }]);
    const sample = JSON.parse(readFileSync(new URL('../../events/platform/platform.approval.requested.json', import.meta.url), 'utf8'));
    expect(Object.keys(delivered.result!.data.data).sort()).toEqual(Object.keys(sample.data).sort());
  });

  it('cannot be published by a user', async () => {
    const response = await api.as(owner.apiKey).post('/api/sdk/v1/events', { type: 'platform.approval.requested' });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('type');
  });
});
