// Agent budgets' composition: the key a paid call presents (accounts), its budget counters, and the owner's approvals
// (the approvals area, whose decisions of agent payments resume nothing: the agent makes the call again).
import { accountsApi } from '#functions/app/accounts/wiring.js';
import { approvalService } from '#functions/app/approvals/wiring.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { createApprovalStore } from '#functions/approvals/store.js';
import { createAgentBudgetStore } from '#functions/payments/agent-budget-store.js';
import { type AgentBudgets, createAgentBudgets } from '#functions/payments/agent-budgets.js';
import type { PaidCallRequest } from '#functions/payments/service.js';

const agentBudgets = perPlatform((platform: Platform): AgentBudgets => {
  const approvals = approvalService(platform);
  const store = createApprovalStore();
  return createAgentBudgets({
    store: createAgentBudgetStore(),
    approvals: {
      async request({ executionId, userId, name, message }) {
        const { approval } = await approvals.request({ executionId, scriptId: '', userId, ownerId: userId }, name, { message });
        return { approvalId: approval.approvalId, expiresAt: approval.expiresAt };
      },
      async status(approvalId) {
        const approval = await store.get(approvalId);
        if (!approval) return undefined;
        return approval.status === 'pending' && Date.parse(approval.expiresAt) <= platform.clock.now() ? 'expired' : approval.status;
      },
    },
    clock: platform.clock,
  });
});

/** The API key a request presents, if any: X-API-Key, or Authorization: Bearer. */
const presentedKey = (headers: Record<string, string | undefined>) => headers['x-api-key'] ?? /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];

/**
 * The admission of a paid call made with an API key (its budget); none for an anonymous payer. A key presented but
 * unknown or revoked is UNAUTHORIZED: an agent is never left thinking a budget holds when it does not.
 */
export async function agentAdmission(
  headers: Record<string, string | undefined>,
): Promise<((approvalId: string | undefined) => NonNullable<PaidCallRequest['admit']>) | undefined> {
  const apiKey = presentedKey(headers);
  if (!apiKey) return undefined;
  const key = await accountsApi().agentKey(apiKey);
  return (approvalId) => agentBudgets().admission(key, approvalId);
}
