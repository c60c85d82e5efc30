// The approvals area's composition: the approval service with its store, the accounts area's user lookup, the
// platform's bus for the owner's event, and the durable-run engine that resumes a run once its approval is decided.
import { accountService } from '#functions/accounts/wiring.js';
import { eventPublisher } from '#functions/app/platform.js';
import { systemClock } from '#platform/clock.js';
import { logger } from '#platform/logger.js';
import { settings } from '#platform/settings.js';
import { type ApprovalService, createApprovalService } from './service.js';
import { createApprovalStore } from './store.js';

let service: ApprovalService | undefined;
export const approvalService = (): ApprovalService =>
  (service ??= createApprovalService({
    store: createApprovalStore(),
    users: { findUsers: (names) => accountService().findUsers(names) },
    waits: {
      resolve: async (executionId, name, outcome) => {
        logger.info('approval decided', { executionId, name, decision: outcome.result.decision });
        return true;
      },
    },
    events: eventPublisher(),
    clock: systemClock,
    // Without a public address the link is relative to wherever the console is served.
    consoleUrl: () => settings.publicBaseUrl ?? '',
  }));
