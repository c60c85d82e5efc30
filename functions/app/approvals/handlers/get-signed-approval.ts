import { httpHandler } from '#platform/http.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { approvalRoutes } from '#functions/approvals/routes.js';
import { approvalService } from '../wiring.js';

export const handler = httpHandler(approvalRoutes.getSignedApproval, async ({ input }) => {
  const approval = await approvalService().readSigned(input.approvalId, input.token);
  const script = await scriptsApi().describeScript(approval.scriptId);
  return { ...approval, ...(script && { scriptName: script.name }) };
});
