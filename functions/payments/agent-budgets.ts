// Agent budgets: a key that pays may carry a daily spend limit (USD per UTC day) and an approval threshold. A paid call
// past the limit is refused with BUDGET_EXCEEDED; one priced above the threshold opens an approval for the key's owner
// and answers `waiting`; the same call made again with that approval's id pays once it is approved (and never twice).
// Nothing is paid or run before admission, and a call that fails to settle gives its reservation back.
import type { Clock } from '#platform/clock.js';
import { AppError, ConflictError, ForbiddenError, NotFoundError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import type { AgentBudgetStore } from './agent-budget-store.js';
import type { Admission } from './service.js';
import { agentPaymentPrefix } from './schemas.js';

/** The key a paid call presents. */
export interface AgentKey {
  userId: string;
  keyId: string;
  name: string;
  spendLimitUsd?: number;
  approvalAboveUsd?: number;
}

/** The owner's approvals (the approvals area): asked for a paid call, and read back. */
export interface AgentApprovals {
  request(request: { executionId: string; userId: string; name: string; message: string }): Promise<{ approvalId: string; expiresAt: string }>;
  status(approvalId: string): Promise<string | undefined>;
}

export class BudgetExceededError extends AppError {
  constructor(message: string, details: Record<string, unknown>) {
    super('BUDGET_EXCEEDED', 422, message, details);
  }
}

const micro = (usd: number) => Math.round(usd * 1_000_000);

export function createAgentBudgets(deps: { store: AgentBudgetStore; approvals: AgentApprovals; clock: Clock }) {
  const { store, approvals, clock } = deps;

  async function approvalWait(key: AgentKey, sale: Sale): Promise<Admission> {
    const executionId = newId(agentPaymentPrefix);
    const { approvalId, expiresAt } = await approvals.request({
      executionId,
      userId: key.userId,
      name: `pay ${sale.resourceId}.${sale.methodName}`,
      message: `API key "${key.name}" asks to pay ${sale.amountUsd} USD for ${sale.resourceId}.${sale.methodName} (its approval threshold is ${key.approvalAboveUsd} USD)`,
    });
    await store.putGrant({
      keyId: key.keyId,
      approvalId,
      resourceId: sale.resourceId,
      methodName: sale.methodName,
      amountMicroUsd: micro(sale.amountUsd),
      expiresAt: Math.ceil(Date.parse(expiresAt) / 1000) + 24 * 3600,
    });
    return waiting(approvalId, expiresAt, 'pending');
  }

  const waiting = (approvalId: string, expiresAt: string | undefined, status: string): Admission => ({
    kind: 'waiting',
    waiting: {
      status: 'waiting',
      waitingFor: { type: 'approval', approvalId, ...(expiresAt && { expiresAt }), approvalStatus: status },
      message: `this paid call waits for its owner's approval ${approvalId}: once approved, make the same call again with the approval's id (HTTP header X-Approval-Id, or MCP _meta["platform/approvalId"]); nothing was paid`,
    },
  });

  /** The approved grant for this call, marked used; undefined while it still waits. */
  async function approvedGrant(key: AgentKey, sale: Sale, approvalId: string): Promise<(() => Promise<void>) | Admission> {
    const grant = await store.getGrant(key.keyId, approvalId);
    if (!grant) throw new NotFoundError('approvalId', approvalId, 'approval');
    if (grant.resourceId !== sale.resourceId || grant.methodName !== sale.methodName || micro(sale.amountUsd) > grant.amountMicroUsd) {
      throw new ForbiddenError(`approval ${approvalId} was given for ${grant.resourceId}.${grant.methodName}, not this call`, { approvalId });
    }
    const status = await approvals.status(approvalId);
    if (status === 'pending') return waiting(approvalId, undefined, status);
    if (status !== 'approved')
      throw new ForbiddenError(`approval ${approvalId} is ${status ?? 'gone'}: this paid call may not be made`, { approvalId, status });
    if (grant.usedAt || !(await store.useGrant(key.keyId, approvalId, clock.nowIso())))
      throw new ConflictError(`approval ${approvalId} was used by an earlier paid call`, { approvalId });
    return () => store.unuseGrant(key.keyId, approvalId);
  }

  return {
    /** The admission of paid calls made with `key`; `approvalId` when the call comes back approved. */
    admission:
      (key: AgentKey, approvalId: string | undefined) =>
      async (sale: Sale): Promise<Admission> => {
        const releases: Array<() => Promise<void>> = [];
        if (key.approvalAboveUsd !== undefined && sale.amountUsd > key.approvalAboveUsd) {
          if (!approvalId) return approvalWait(key, sale);
          const approved = await approvedGrant(key, sale, approvalId);
          if (typeof approved !== 'function') return approved;
          releases.push(approved);
        }
        if (key.spendLimitUsd !== undefined) {
          const day = clock.nowIso().slice(0, 10);
          const amount = micro(sale.amountUsd);
          if (!(await store.reserve(key.keyId, day, amount, micro(key.spendLimitUsd), Math.floor(clock.now() / 1000)))) {
            await Promise.all(releases.map((release) => release()));
            throw new BudgetExceededError(
              `this paid call (${sale.amountUsd} USD) would pass the key's spend limit of ${key.spendLimitUsd} USD for ${day} (UTC)`,
              {
                field: 'spendLimitUsd',
                value: key.spendLimitUsd,
              },
            );
          }
          releases.push(() => store.release(key.keyId, day, amount));
        }
        return { kind: 'admitted', release: async () => void (await Promise.all(releases.map((release) => release()))) };
      },
  };
}

type Sale = { resourceId: string; methodName: string; amountUsd: number };

export type AgentBudgets = ReturnType<typeof createAgentBudgets>;
