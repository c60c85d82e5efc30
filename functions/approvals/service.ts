// Approvals: a durable run asks named users to decide; one of them approves or rejects (with their key, or with the
// signed link sent to them), or the request expires. The decision resumes the run through the engine.
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '#platform/clock.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';
import { parseInput } from '#platform/validation.js';
import { approvalRequestedType } from '#functions/events/event-types.js';
import type { ApprovalRun, ApprovalWaits, UserDirectory } from './ports.js';
import { type Approval, type ApprovalOutcome, ApprovalRequestInput, type Decision } from './schemas.js';
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

/** The signed link an approver opens without a key: the console's page, which calls the signed routes. */
export const approvalLink = (consoleUrl: string, approvalId: string, token: string) =>
  `${consoleUrl}/#/approve/${approvalId}?token=${encodeURIComponent(token)}`;

export function createApprovalService(deps: ApprovalServiceDeps) {
  const { store, clock } = deps;

  const isOver = (approval: StoredApproval) => approval.status === 'pending' && Date.parse(approval.expiresAt) <= clock.now();

  function view(approval: StoredApproval): Approval {
    const { userId: _user, ownerId: _owner, tokenHashes: _tokens, retainUntil: _retain, ...shown } = approval;
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

  async function settle(approval: StoredApproval, approverId: string, decision: Decision, comment: string | undefined): Promise<Approval> {
    if (!mayDecide(approval, approverId)) throw new ForbiddenError('you may not approve your own run', { field: 'approvalId', value: approval.approvalId });
    if (isOver(approval)) throw new ConflictError(`approval ${approval.approvalId} expired at ${approval.expiresAt}`);
    if (approval.status !== 'pending') throw new ConflictError(`approval ${approval.approvalId} is already ${approval.status}`);
    const by = approval.approvers.find((approver) => approver.userId === approverId)!.username;
    const decidedAt = clock.nowIso();
    const outcome: ApprovalOutcome = { decision, by, comment: comment ?? null, decidedAt };
    // The run's wait is settled first: a decision that reaches no waiting run (another decision won, the run timed out
    // or was cancelled) changes nothing here either.
    if (!(await deps.waits.resolve(approval.executionId, approval.name, { result: outcome })))
      throw new ConflictError(`approval ${approval.approvalId} no longer waits for a decision`);
    const settlement: Settlement = { status: decision === 'approve' ? 'approved' : 'rejected', decision, decidedBy: by, comment, decidedAt };
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
     * Opens an approval for a run's wait `name`. Approvers that are no one, or a list only the run's own user is on,
     * are refused here, before anything is stored, so the run's code gets the error at its call.
     */
    async request(run: ApprovalRun, name: string, raw: unknown): Promise<{ approval: Approval; links: Record<string, string>; timeoutSeconds: number }> {
      const input = parseInput(ApprovalRequestInput, raw);
      const named = input.approvers ?? [run.ownerId];
      const { found, missing } = await deps.users.findUsers(named);
      if (missing.length) throw new ValidationError('approvers', missing, `no such user: ${missing.join(', ')}`);
      if (!found.some(({ userId }) => mayDecide({ ...run, approvers: found }, userId)))
        throw new ValidationError('approvers', named, 'no one else is listed: the run’s own user approves only as the script’s owner');
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
        retainUntil: Math.floor(now / 1000) + input.timeout + retentionSeconds,
      };
      await store.create(approval);
      const links = Object.fromEntries([...tokens].map(([userId, token]) => [userId, approvalLink(deps.consoleUrl(), approval.approvalId, token)]));
      const shown = view(approval);
      await deps.events.publish({
        type: approvalRequestedType,
        source: 'approvals',
        userId: run.userId,
        data: { ...shown, approvers: found.map((approver) => ({ ...approver, approvalUrl: links[approver.userId] })) },
      });
      return { approval: shown, links, timeoutSeconds: input.timeout };
    },

    async listPending(caller: Caller, page: { limit: number; offset: number }): Promise<{ approvals: Approval[]; count: number }> {
      const open = (await store.pendingFor(caller.userId)).filter((approval) => approval.status === 'pending' && !isOver(approval));
      open.sort((a, b) => b.requestedAt.localeCompare(a.requestedAt) || a.approvalId.localeCompare(b.approvalId));
      return { approvals: open.slice(page.offset, page.offset + page.limit).map(view), count: open.length };
    },

    async decide(caller: Caller, approvalId: string, decision: Decision, comment?: string): Promise<Approval> {
      return settle(await findAsApprover(approvalId, caller.userId), caller.userId, decision, comment);
    },

    /** What the signed link's page shows: the approval, and whom the link acts for. */
    async readSigned(approvalId: string, token: string): Promise<Approval & { approver: string }> {
      const { approval, approverId } = await bySignedLink(approvalId, token);
      return { ...view(approval), approver: approval.approvers.find(({ userId }) => userId === approverId)!.username };
    },

    async decideSigned(approvalId: string, token: string, decision: Decision, comment?: string): Promise<Approval> {
      const { approval, approverId } = await bySignedLink(approvalId, token);
      return settle(approval, approverId, decision, comment);
    },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
