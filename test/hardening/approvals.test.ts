// Approvals as hostile tenants try them (issue 31, class 1 and the approval parts of class 3; issue 33, item 6), over
// HTTP against the real platform with sandboxed durable scripts: a run's user who finds an approver's signed link in
// their own event history, a re-run that reuses a decision, a requester who floods another user's inbox, a name probe,
// and approvals that outlive their run.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approvalService } from '../../functions/app/approvals/wiring.js';
import { maxPendingPerRequester } from '../../functions/approvals/schemas.js';
import { createFileBlobStore } from '../../functions/adapters/local/file-blob-store.js';
import { createJournal } from '../../functions/durable/journal.js';
import { durableRuns } from '../support/durable-runs.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { execute, givenDeployed, givenListed, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let approver: TestUser;
let installer: TestUser;
let victim: TestUser;
let refunds: string;
let published: string;

/** A refund gated by an approval: without an amount it does nothing (so it can be published after one run). */
const refundCode = `export async function handler(event, context) {
  if (!event.data.amount) return { idle: true };
  const request = { message: 'Refund ' + event.data.amount + ' USD?', ...(event.data.approvers && { approvers: event.data.approvers }) };
  try {
    const answer = await context.waitForApproval('approve-refund', request);
    if (answer.decision !== 'approve') return { refunded: false };
    const refund = await context.step('refund', async () => ({ refunded: event.data.amount }));
    await context.step('notify', async () => 'sent');
    return { refund, answer };
  } catch (error) {
    return { caught: error.code, message: error.message };
  }
}`;

/** A run that waits for a callback, to cancel. */
const callbackCode = `export async function handler(event, context) {
  return await context.waitForCallback('paid', async () => {});
}`;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, approver, installer, victim] = await Promise.all([api.givenUser(), api.givenUser(), api.givenUser(), api.givenUser()]);
  [refunds, published] = await Promise.all([
    givenDeployed(api, owner, { code: refundCode, config: { durable: true } }).then((script) => script.id),
    givenListed(api, owner, { code: refundCode, config: { durable: true } }).then((script) => script.id),
  ]);
  expect((await api.as(installer.apiKey).post(`${rest}/${published}/install`)).status).toBe(201);
});
afterAll(() => api.stop());

const executions = '/api/sdk/v1/executions';
const statusOf = async (who: TestUser, executionId: string) => (await api.as(who.apiKey).post(sdk('getExecution'), { executionId })).body.data;
const untilStatus = (who: TestUser, executionId: string, status: string) => durableRuns(api, who).waitForStatus(executionId, status);
const pendingOf = async (who: TestUser) => (await api.as(who.apiKey).get('/api/sdk/v1/approvals?limit=100')).body.data.approvals as Array<Record<string, any>>;
const approvalOf = (who: TestUser, executionId: string) =>
  vi.waitFor(
    async () => {
      const found = (await pendingOf(who)).find((approval) => approval.executionId === executionId);
      expect(found).toBeDefined();
      return found!;
    },
    { timeout: 20_000, interval: 100 },
  );
/** The user's own `platform.approval.requested` events of one approval, once the history holds one. */
const requestedEvents = (who: TestUser, approvalId: string) =>
  vi.waitFor(
    async () => {
      const { events } = (await api.as(who.apiKey).get('/api/sdk/v1/events?type=platform.approval.requested&limit=100')).body.data;
      const mine = (events as Array<Record<string, any>>).filter((item) => item.event?.data?.approvalId === approvalId);
      expect(mine.length).toBeGreaterThan(0);
      return mine;
    },
    { timeout: 20_000, interval: 100 },
  );
const linksIn = (value: unknown) => JSON.stringify(value).match(/#\/approve\/[^"]+/g) ?? [];
const signedPath = (link: string) => {
  const [, approvalId, token] = /#\/approve\/([^?]+)\?token=(.+)$/.exec(link)!;
  return `/api/sdk/v1/approvals/${approvalId}/signed?token=${token}`;
};

/** Starts a refund run as `who` and answers it once it waits for its approval. */
async function givenWaitingRefund(who: TestUser, scriptId: string, data: Record<string, unknown>) {
  const started = await execute(api, who, scriptId, data);
  expect(started.status).toBe(202);
  const { executionId } = started.body.data;
  await untilStatus(who, executionId, 'waiting');
  return executionId as string;
}

describe('approvals: a signed link reaches only the approver it names', () => {
  it("the run's user finds no approver's link in their own event history, and cannot approve their run", async () => {
    // Prepare
    const executionId = await givenWaitingRefund(owner, refunds, { amount: 40, approvers: [approver.username] });
    const approval = await approvalOf(approver, executionId);
    // Act: the run's user looks in their history for a link and tries every one found.
    const ownHistory = await requestedEvents(owner, approval.approvalId);
    const tried = await Promise.all(linksIn(ownHistory).map((link) => api.request('POST', signedPath(link), { body: { decision: 'approve' } })));
    // Assess
    expect(linksIn(ownHistory)).toEqual([]);
    expect(JSON.stringify(ownHistory)).not.toMatch(/apv_|token/);
    expect(tried.filter((response) => response.status === 200)).toEqual([]);
    expect((await statusOf(owner, executionId)).status).toBe('waiting');
    // The approver's own event carries their link, and it decides as them.
    const approversLinks = linksIn(await requestedEvents(approver, approval.approvalId));
    expect(approversLinks).toHaveLength(1);
    const decided = await api.request('POST', signedPath(approversLinks[0]!), { body: { decision: 'approve' } });
    expect(decided.status).toBe(200);
    expect(decided.body.data).toMatchObject({ status: 'approved', decidedBy: approver.username });
  });

  it("an installer of a published script finds no owner's link, and cannot approve their own 5,000 USD refund", async () => {
    // Prepare: the installer's run asks the script's owner (the default approver).
    const executionId = await givenWaitingRefund(installer, published, { amount: 5000 });
    const approval = await approvalOf(owner, executionId);
    // Act
    const installersHistory = await requestedEvents(installer, approval.approvalId);
    const tried = await Promise.all(linksIn(installersHistory).map((link) => api.request('POST', signedPath(link), { body: { decision: 'approve' } })));
    // Assess
    expect(linksIn(installersHistory)).toEqual([]);
    expect(tried.filter((response) => response.status === 200)).toEqual([]);
    expect((await statusOf(installer, executionId)).status).toBe('waiting');
    expect(installersHistory[0]!.event.data.approvers).toEqual([{ userId: owner.userId, username: owner.username }]);
  });

  it("a link of one approval does not decide another, even the same approver's", async () => {
    // Prepare
    const [first, second] = [
      await givenWaitingRefund(owner, refunds, { amount: 1, approvers: [approver.username] }),
      await givenWaitingRefund(owner, refunds, { amount: 2, approvers: [approver.username] }),
    ];
    const [firstApproval, secondApproval] = [await approvalOf(approver, first), await approvalOf(approver, second)];
    const firstLink = linksIn(await requestedEvents(approver, firstApproval.approvalId))[0]!;
    const token = new URL(`http://x/${signedPath(firstLink)}`).searchParams.get('token')!;
    // Act
    const borrowed = await api.request('POST', `/api/sdk/v1/approvals/${secondApproval.approvalId}/signed?token=${token}`, { body: { decision: 'approve' } });
    // Assess
    expect(borrowed.status).toBe(404);
    expect((await statusOf(owner, second)).status).toBe('waiting');
  });
});

describe('approvals: a decision holds for its run', () => {
  it('three re-runs from the step after the approval each ask again, and refund nothing without a new decision', async () => {
    // Prepare: one approved refund.
    const executionId = await givenWaitingRefund(owner, refunds, { amount: 75, approvers: [approver.username] });
    const approval = await approvalOf(approver, executionId);
    expect((await api.as(approver.apiKey).post(`/api/sdk/v1/approvals/${approval.approvalId}`, { decision: 'approve' })).status).toBe(200);
    expect((await untilStatus(owner, executionId, 'completed')).output.refund).toEqual({ refunded: 75 });
    // Act: the run's user re-runs it from the refund step three times.
    const reruns: string[] = [];
    for (let index = 0; index < 3; index++) {
      const rerun = await api.as(owner.apiKey).post(`${executions}/${executionId}/rerun`, { fromStep: 'refund' });
      expect(rerun.status).toBe(202);
      reruns.push(rerun.body.data.executionId);
    }
    // Assess: each waits for a new approval, none refunded.
    for (const rerun of reruns) {
      const waiting = await untilStatus(owner, rerun, 'waiting');
      expect(waiting.steps.map((step: { name: string; status: string }) => [step.name, step.status])).toEqual([['approve-refund', 'waiting']]);
      expect((await approvalOf(approver, rerun)).approvalId).not.toBe(approval.approvalId);
    }
  });

  it('a replay of the approved run asks again too', async () => {
    // Prepare
    const replayed = await api.givenUser();
    const scriptId = (await givenDeployed(api, replayed, { code: refundCode, config: { durable: true } })).id;
    const executionId = await givenWaitingRefund(replayed, scriptId, { amount: 9, approvers: [approver.username] });
    const approval = await approvalOf(approver, executionId);
    await api.as(approver.apiKey).post(`/api/sdk/v1/approvals/${approval.approvalId}`, { decision: 'approve' });
    await untilStatus(replayed, executionId, 'completed');
    // Act
    const replay = await api.as(replayed.apiKey).post(`${executions}/replay`, { scriptId });
    // Assess
    expect(replay.status).toBe(202);
    for (const rerun of replay.body.data.executionIds as string[]) {
      await untilStatus(replayed, rerun, 'waiting');
      expect((await approvalOf(approver, rerun)).status).toBe('pending');
    }
  });

  it('a decision with allowReuse lets a re-run from a later step reuse it', async () => {
    // Prepare
    const executionId = await givenWaitingRefund(owner, refunds, { amount: 12, approvers: [approver.username] });
    const approval = await approvalOf(approver, executionId);
    const decided = await api.as(approver.apiKey).post(`/api/sdk/v1/approvals/${approval.approvalId}`, { decision: 'approve', allowReuse: true });
    expect(decided.body.data).toMatchObject({ status: 'approved', allowReuse: true });
    await untilStatus(owner, executionId, 'completed');
    // Act
    const rerun = await api.as(owner.apiKey).post(`${executions}/${executionId}/rerun`, { fromStep: 'notify' });
    // Assess
    const finished = await untilStatus(owner, rerun.body.data.executionId, 'completed');
    expect(finished.output.answer).toMatchObject({ decision: 'approve', by: approver.username, allowReuse: true });
  });
});

describe('approvals: what others can ask of a user', () => {
  const asRequester = (requester: TestUser, executionId: string) => ({ executionId, scriptId: refunds, userId: requester.userId, ownerId: requester.userId });

  it(`a requester has at most ${maxPendingPerRequester} approvals pending in another user's inbox; more are refused, an ended one frees a place`, async () => {
    // Prepare
    const flooder = await api.givenUser();
    const opened: string[] = [];
    for (let index = 0; index < maxPendingPerRequester; index++)
      opened.push((await approvalService().request(asRequester(flooder, `exe_flood_${index}`), 'ask', { approvers: [victim.username] })).approval.approvalId);
    // Act
    const beyond = approvalService().request(asRequester(flooder, 'exe_flood_beyond'), 'ask', { approvers: [victim.username] });
    // Assess
    await expect(beyond).rejects.toMatchObject({ code: 'APPROVER_UNAVAILABLE', details: { field: 'approvers', value: [victim.username] } });
    expect((await pendingOf(victim)).filter((approval) => opened.includes(approval.approvalId))).toHaveLength(maxPendingPerRequester);
    // Another requester, and the requester asking themself, are not held by this one's count.
    await expect(approvalService().request(asRequester(owner, 'exe_other'), 'ask', { approvers: [victim.username] })).resolves.toBeDefined();
    await expect(approvalService().request(asRequester(flooder, 'exe_self'), 'ask', {})).resolves.toBeDefined();
    await approvalService().cancel(opened[0]!, 'its run exe_flood_0 ended');
    await expect(approvalService().request(asRequester(flooder, 'exe_flood_again'), 'ask', { approvers: [victim.username] })).resolves.toBeDefined();
  });

  it('a run past the bound gets APPROVER_UNAVAILABLE at its call', async () => {
    // Prepare
    const flooder = await api.givenUser();
    const scriptId = (await givenDeployed(api, flooder, { code: refundCode, config: { durable: true } })).id;
    for (let index = 0; index < maxPendingPerRequester; index++)
      await approvalService().request(asRequester(flooder, `exe_run_${index}`), 'ask', { approvers: [victim.userId] });
    // Act
    const run = await execute(api, flooder, scriptId, { amount: 1, approvers: [victim.userId] });
    // Assess
    expect(run.status).toBe(200);
    expect(run.body.data.output).toMatchObject({ caught: 'APPROVER_UNAVAILABLE' });
  });

  it('an unknown approver gets the answer of a known user who may not be asked: same code, same message but the name', async () => {
    // Prepare: the victim is at the bound for this requester.
    const prober = await api.givenUser();
    for (let index = 0; index < maxPendingPerRequester; index++)
      await approvalService().request(asRequester(prober, `exe_probe_${index}`), 'ask', { approvers: [victim.username] });
    const unknownName = `nobody-${Date.now().toString(36)}`;
    const refusal = async (name: string) => {
      const error = await approvalService()
        .request(asRequester(prober, 'exe_probe'), 'ask', { approvers: [name] })
        .then(
          () => undefined,
          (caught: { code: string; message: string; details: unknown }) => caught,
        );
      return { code: error?.code, message: error?.message.replace(name, '<name>'), details: error?.details };
    };
    // Act
    const [unknown, known] = [await refusal(unknownName), await refusal(victim.username)];
    const self = await approvalService()
      .request({ ...asRequester(installer, 'exe_probe'), ownerId: owner.userId }, 'ask', { approvers: [installer.username] })
      .then(
        () => undefined,
        (caught: { code: string; message: string }) => ({ code: caught.code, message: caught.message.replace(installer.username, '<name>') }),
      );
    // Assess
    expect(unknown).toEqual({ ...known, details: { field: 'approvers', value: [unknownName] } });
    expect(known.code).toBe('APPROVER_UNAVAILABLE');
    expect(self).toEqual({ code: known.code, message: known.message });
    expect(unknown.message).not.toMatch(/no such user/);
  });
});

describe('approvals and callbacks of a run that ended', () => {
  it('a cancelled run’s approval is cancelled, leaves the inbox, and a decision answers CONFLICT naming why', async () => {
    // Prepare
    const executionId = await givenWaitingRefund(owner, refunds, { amount: 30, approvers: [approver.username] });
    const approval = await approvalOf(approver, executionId);
    const link = linksIn(await requestedEvents(approver, approval.approvalId))[0]!;
    // Act
    expect((await api.as(owner.apiKey).post(`${executions}/${executionId}/cancel`, {})).status).toBe(200);
    const decided = await api.as(approver.apiKey).post(`/api/sdk/v1/approvals/${approval.approvalId}`, { decision: 'approve' });
    const bySignedLink = await api.request('POST', signedPath(link), { body: { decision: 'approve' } });
    // Assess
    expect((await pendingOf(approver)).map((item) => item.approvalId)).not.toContain(approval.approvalId);
    expect(decided.status).toBe(409);
    expect(decided.body.error).toMatchObject({
      code: 'CONFLICT',
      message: `approval ${approval.approvalId} is cancelled: its run ${executionId} was cancelled`,
    });
    expect(bySignedLink.status).toBe(409);
    expect((await api.request('GET', signedPath(link))).body.data).toMatchObject({ status: 'cancelled', cancelReason: `its run ${executionId} was cancelled` });
    expect((await statusOf(owner, executionId)).status).toBe('cancelled');
  });

  it('a cancelled run’s callback is cancelled, and completing it answers CONFLICT naming why', async () => {
    // Prepare
    const scriptId = (await givenDeployed(api, owner, { code: callbackCode, config: { durable: true } })).id;
    const started = await execute(api, owner, scriptId);
    const { executionId } = started.body.data;
    const waiting = await untilStatus(owner, executionId, 'waiting');
    expect(waiting.steps[0]).toMatchObject({ name: 'paid', type: 'callback', status: 'waiting' });
    // The callback's id went to the code alone: the test reads it from the run's journal.
    const { entries } = await createJournal(() => createFileBlobStore('script-packages')).read(executionId);
    const callbackId = entries.find((entry) => entry.name === 'paid')!.fields!.callbackId as string;
    // Act
    expect((await api.as(owner.apiKey).post(`${executions}/${executionId}/cancel`, {})).status).toBe(200);
    const completed = await api.as(owner.apiKey).post(`${executions}/${executionId}/callbacks/${callbackId}`, { result: 'paid' });
    // Assess
    expect((await statusOf(owner, executionId)).steps[0]).toMatchObject({ name: 'paid', status: 'cancelled' });
    expect(completed.status).toBe(409);
    expect(completed.body.error).toMatchObject({ code: 'CONFLICT', message: `callback ${callbackId} is cancelled: its run ${executionId} was cancelled` });
  });
});

describe('approvals: bad input is a clear 400', () => {
  it.each([
    ['allowReuse not a boolean', { decision: 'approve', allowReuse: 'yes' }, 'allowReuse'],
    ['an unknown field', { decision: 'approve', approveAll: true }, 'approveAll'],
    ['no decision', {}, 'decision'],
    ['a comment past its limit', { decision: 'approve', comment: 'x'.repeat(2001) }, 'comment'],
  ])('deciding with %s', async (_what, body, field) => {
    const response = await api.as(approver.apiKey).post('/api/sdk/v1/approvals/apr_any', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it.each([
    ['offset past the page read', '?offset=1001', 'offset'],
    ['a negative offset', '?offset=-1', 'offset'],
    ['a limit of 0', '?limit=0', 'limit'],
    ['a limit that is no number', '?limit=many', 'limit'],
  ])('listing with %s', async (_what, query, field) => {
    const response = await api.as(approver.apiKey).get(`/api/sdk/v1/approvals${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('a signed decision with an empty token or a bad body', async () => {
    const empty = await api.request('POST', '/api/sdk/v1/approvals/apr_any/signed?token=', { body: { decision: 'approve' } });
    const bad = await api.request('POST', '/api/sdk/v1/approvals/apr_any/signed?token=apv_x', { body: { decision: 'approve', allowReuse: 1 } });
    expect([empty.status, bad.status]).toEqual([400, 400]);
  });
});
