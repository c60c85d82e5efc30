// The approvals area's composition: the approval service with its store, the accounts area's user lookup, the
// platform's bus for the owner's event, and the durable-run engine that resumes a run once its approval is decided.
import { findUsers } from '#functions/accounts/api.js';
import { perPlatform } from '#functions/app/platform.js';
import { resolveWait } from '#functions/scripts/api.js';
import { type ApprovalService, createApprovalService } from '#functions/approvals/service.js';
import { createApprovalStore } from '#functions/approvals/store.js';

export const approvalService = perPlatform(
  ({ eventBus, clock, settings }): ApprovalService =>
    createApprovalService({
      store: createApprovalStore(),
      users: { findUsers },
      waits: { resolve: resolveWait },
      events: eventBus,
      clock,
      // The console is served at the platform's address (PUBLIC_BASE_URL; locally the server's own).
      consoleUrl: settings.kernel.callbackBaseUrl,
    }),
);
