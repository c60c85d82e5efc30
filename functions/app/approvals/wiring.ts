// The approvals area's composition: the approval service with its store, the accounts area's user lookup, the
// platform's bus for the owner's event, and the durable-run engine that resumes a run once its approval is decided.
import { accountsApi } from '#functions/app/accounts/wiring.js';
import { perPlatform } from '#functions/app/platform.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { type ApprovalsApi, createApprovalsApi } from '#functions/approvals/api.js';
import { type ApprovalService, createApprovalService } from '#functions/approvals/service.js';
import { createApprovalStore } from '#functions/approvals/store.js';
import { agentPaymentPrefix } from '#functions/payments/schemas.js';

export const approvalService = perPlatform(
  (platform): ApprovalService =>
    createApprovalService({
      store: createApprovalStore(),
      users: accountsApi(platform),
      // An agent's paid call waits in no run: the agent makes the call again once it is decided.
      waits: {
        resolve: async (executionId, name, outcome) =>
          executionId.startsWith(`${agentPaymentPrefix}_`) || scriptsApi(platform).resolveWait(executionId, name, outcome),
      },
      events: platform.eventBus,
      clock: platform.clock,
      // The console is served at the platform's address (PUBLIC_BASE_URL; locally the server's own).
      consoleUrl: platform.settings.kernel.callbackBaseUrl,
    }),
);

/** An approval read through its signed link, with the name of the script that asks: the approver may hold no key. */
export async function readSignedApproval(approvalId: string, token: string) {
  const approval = await approvalService().readSigned(approvalId, token);
  const script = await scriptsApi().describeScript(approval.scriptId);
  return { ...approval, ...(script && { scriptName: script.name }) };
}

/** The approvals area's facade, for other areas' compositions. */
export const approvalsApi = perPlatform((platform): ApprovalsApi => createApprovalsApi(approvalService(platform)));
