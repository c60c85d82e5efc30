// Approvals: a durable run asks named users to decide; one of them approves or rejects (with their key, or with the
// signed link sent to them alone), or the request expires, or the run ends first and the approval is cancelled. The
// decision resumes the run through the engine.
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '#platform/clock.js';
import { AppError, ConflictError, ForbiddenError, NotFoundError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';
import { parseInput } from '#platform/validation.js';
import { approvalRequestedType } from '#platform/event-types.js';
import type { ApprovalRun, ApprovalWaits, UserDirectory } from './ports.js';
import { type Approval, type ApprovalOutcome, ApprovalRequestInput, type Decision, maxPendingPerRequester } from './schemas.js';
import type { ApprovalStore, Settlement, StoredApproval } from './store.js';

/** Decided and expired approvals stay readable this long (the interface keeps results 90 days). */
const retentionSeconds = 90 * 24 * 3600;

export interface ApprovalServiceDeps {
  store: ApprovalStore;
  users: UserDirectory;
  waits: ApprovalWaits;
  events: EventPublisher;
  clock: Clock;
  /** Where the console answers: the signed links point at its approval page. */
  consoleUrl: () => string;
}

/** A decision to take: the approver may let re-runs reuse it. */
export interface DecisionInput {
  decision: Decision;
  comment?: string;
  allowReuse?: boolean;
}

/**
 * Approvers a run cannot ask: unknown, the run's own user where no one else may decide, or at the bound of pending
 * approvals from this requester. One code and one message for all, so a refusal does not tell whether a name exists.
 */
export const approverUnavailableCode = 'APPROVER_UNAVAILABLE';
const unavailable = (names: string[]) =>
  new AppError(
    approverUnavailableCode,
    400,
    `cannot ask ${names.join(', ')} for this approval: not a user who may approve it now (unknown, the run’s own user, or ${maxPendingPerRequester} approvals from the same requester already pending)`,
    { field: 'approvers', value: names },
  );

/** Whether a stored approval wait's outcome (JSON text) may be reused by a re-run: only when its approver said so. */
export const reusableOutcome = (resultJson: string | undefined): boolean => {
  const outcome = resultJson === undefined ? undefined : (JSON.parse(resultJson) as Partial<ApprovalOutcome> | null);
  return outcome?.allowReuse === true;
};

/** The signed link an approver opens without a key: the console's page, which calls the signed routes. */
export const approvalLink = (consoleUrl: string, approvalId: string, token: string) =>
  `${consoleUrl}/#/approve/${approvalId}?token=${encodeURIComponent(token)}`;

export function createApprovalService(deps: ApprovalServiceDeps) {
  const { store, clock } = deps;

  const isOver = (approval: StoredApproval) => approval.status === 'pending' && Date.parse(approval.expiresAt) <= clock.now();

  function view(approval: StoredApproval): Approval {
    const { userId: _user, ownerId: _owner, tokenHashes: _tokens, countedApprovers: _counted, retainUntil: _retain, ...shown } = approval;
    return isOver(approval) ? { ...shown, status: 'expired' } : shown;
  }

  /** The run's own user decides only as the script's owner and sole approver: no one approves their own run otherwise. */
  const mayDecide = (run: Pick<StoredApproval, 'userId' | 'ownerId' | 'approvers'>, approverId: string) =>
    approverId !== run.userId || (approverId === run.ownerId && run.approvers.length === 1);

  async function findAsApprover(approvalId: string, userId: string): Promise<StoredApproval> {
    const approval = await store.get(approvalId);
    // Someone not listed learns nothing, not even that the approval exists.
    if (!approval?.approvers.some((approver) => approver.userId === userId)) throw new NotFoundError('approvalId', approvalId);
    return approval;
  }

  async function settle(approval: StoredApproval, approverId: string, { decision, comment, allowReuse }: DecisionInput): Promise<Approval> {
    if (!mayDecide(approval, approverId)) throw new ForbiddenError('you may not approve your own run', { field: 'approvalId', value: approval.approvalId });
    if (approval.status === 'cancelled') throw new ConflictError(`approval ${approval.approvalId} is cancelled: ${approval.cancelReason}`);
    if (isOver(approval)) throw new ConflictError(`approval ${approval.approvalId} expired at ${approval.expiresAt}`);
    if (approval.status !== 'pending') throw new ConflictError(`approval ${approval.approvalId} is already ${approval.status}`);
    const by = approval.approvers.find((approver) => approver.userId === approverId)!.username;
    const decidedAt = clock.nowIso();
    const outcome: ApprovalOutcome = { decision, by, comment: comment ?? null, decidedAt, ...(allowReuse && { allowReuse: true as const }) };
    // The run's wait is settled first: a decision that reaches no waiting run (another decision won, the run timed out
    // or was cancelled) changes nothing here either.
    if (!(await deps.waits.resolve(approval.executionId, approval.name, { result: outcome })))
      throw new ConflictError(`approval ${approval.approvalId} no longer waits for a decision`);
    const settlement: Settlement = {
      status: decision === 'approve' ? 'approved' : 'rejected',
      decision,
      decidedBy: by,
      comment,
      decidedAt,
      ...(allowReuse && { allowReuse: true }),
    };
    await store.settle(approval, settlement);
    return view({ ...approval, ...settlement });
  }

  /** The approver a signed-link token was issued to, compared in constant time. */
  function tokenHolder(approval: StoredApproval | undefined, token: string): string | undefined {
    const hash = Buffer.from(sha256Hex(token));
    return Object.entries(approval?.tokenHashes ?? {}).find(([, stored]) => timingSafeEqual(Buffer.from(stored), hash))?.[0];
  }

  async function bySignedLink(approvalId: string, token: string): Promise<{ approval: StoredApproval; approverId: string }> {
    const approval = await store.get(approvalId);
    const approverId = tokenHolder(approval, token);
    if (!approval || !approverId) throw new NotFoundError('approvalId', approvalId);
    return { approval, approverId };
  }

  return {
    /**
     * Opens an approval for a run's wait `name`. Approvers the run cannot ask are refused here, before anything is
     * stored, so the run's code gets the error at its call. Each approver's signed link goes to that approver alone,
     * in their own `platform.approval.requested`; the run's user is told of the request without links.
     */
    async request(run: ApprovalRun, name: string, raw: unknown): Promise<{ approval: Approval; timeoutSeconds: number }> {
      const input = parseInput(ApprovalRequestInput, raw);
      const named = input.approvers ?? [run.ownerId];
      const { found, missing } = await deps.users.findUsers(named);
      if (missing.length) throw unavailable(missing);
      const namesOf = (userIds: string[]) =>
        named.filter((given) => found.some((user) => userIds.includes(user.userId) && (given === user.userId || given === user.username)));
      if (!found.some(({ userId }) => mayDecide({ ...run, approvers: found }, userId))) throw unavailable(namesOf([run.userId]));
      const now = clock.now();
      const tokens = new Map(found.map(({ userId }) => [userId, newSecret('apv')]));
      const approval: StoredApproval = {
        approvalId: newId('apr'),
        executionId: run.executionId,
        scriptId: run.scriptId,
        ...(run.flowId && { flowId: run.flowId }),
        userId: run.userId,
        ownerId: run.ownerId,
        name,
        message: input.message,
        approvers: found,
        requestedAt: new Date(now).toISOString(),
        expiresAt: new Date(now + input.timeout * 1000).toISOString(),
        status: 'pending',
        tokenHashes: Object.fromEntries([...tokens].map(([userId, token]) => [userId, sha256Hex(token)])),
        // Asking oneself is not bounded here: a run's own user is bounded by what their runs may open.
        countedApprovers: found.filter(({ userId }) => userId !== run.userId).map(({ userId }) => userId),
        retainUntil: Math.floor(now / 1000) + input.timeout + retentionSeconds,
      };
      const { atLimit } = await store.create(approval, Math.floor(now / 1000), maxPendingPerRequester);
      if (atLimit.length) throw unavailable(namesOf(atLimit));
      const shown = view(approval);
      const recipients = new Set([run.userId, ...found.map(({ userId }) => userId)]);
      await Promise.all(
        [...recipients].map((userId) =>
          deps.events.publish({
            type: approvalRequestedType,
            source: 'approvals',
            userId,
            data: {
              ...shown,
              approvers: found.map((approver) =>
                approver.userId === userId ? { ...approver, approvalUrl: approvalLink(deps.consoleUrl(), approval.approvalId, tokens.get(userId)!) } : approver,
              ),
            },
          }),
        ),
      );
      return { approval: shown, timeoutSeconds: input.timeout };
    },

    /**
     * The run of `approvalId` ended before a decision: the approval is cancelled, leaves the inboxes, and a decision
     * is refused naming `reason`. Nothing changes when it was decided already.
     */
    async cancel(approvalId: string, reason: string): Promise<void> {
      const approval = await store.get(approvalId);
      if (approval?.status === 'pending') await store.settle(approval, { status: 'cancelled', cancelReason: reason });
    },

    /** The status of one approval, a pending one past its expiry read as expired; undefined for an unknown id. */
    async statusOf(approvalId: string): Promise<Approval['status'] | undefined> {
      const approval = await store.get(approvalId);
      if (!approval) return undefined;
      return approval.status === 'pending' && Date.parse(approval.expiresAt) <= clock.now() ? 'expired' : approval.status;
    },

    /** One page of the caller's pending approvals, soonest expiry first; `count` is the page's. */
    async listPending(caller: Caller, page: { limit: number; offset: number }): Promise<{ approvals: Approval[]; count: number }> {
      const open = (await store.pendingPage(caller.userId, Math.floor(clock.now() / 1000), page)).filter(
        (approval) => approval.status === 'pending' && !isOver(approval),
      );
      return { approvals: open.map(view), count: open.length };
    },

    async decide(caller: Caller, approvalId: string, decision: DecisionInput): Promise<Approval> {
      return settle(await findAsApprover(approvalId, caller.userId), caller.userId, decision);
    },

    /** What the signed link's page shows: the approval, and whom the link acts for. */
    async readSigned(approvalId: string, token: string): Promise<Approval & { approver: string }> {
      const { approval, approverId } = await bySignedLink(approvalId, token);
      return { ...view(approval), approver: approval.approvers.find(({ userId }) => userId === approverId)!.username };
    },

    async decideSigned(approvalId: string, token: string, decision: DecisionInput): Promise<Approval> {
      const { approval, approverId } = await bySignedLink(approvalId, token);
      return settle(approval, approverId, decision);
    },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
