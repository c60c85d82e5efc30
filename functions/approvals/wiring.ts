// The approvals area's composition: the approval service with its store, the accounts area's user lookup, the
// platform's bus for the owner's event, and the durable-run engine that resumes a run once its approval is decided.
import { accountService } from '#functions/accounts/wiring.js';
import { eventPublisher } from '#functions/app/platform.js';
import { durableEngine } from '#functions/scripts/wiring.js';
import { systemClock } from '#platform/clock.js';
import { settings } from '#platform/settings.js';
import { type ApprovalService, createApprovalService } from './service.js';
import { createApprovalStore } from './store.js';

let service: ApprovalService | undefined;
export const approvalService = (): ApprovalService =>
  (service ??= createApprovalService({
    store: createApprovalStore(),
    users: { findUsers: (names) => accountService().findUsers(names) },
    waits: { resolve: (executionId, name, outcome) => durableEngine().resolveWait(executionId, name, outcome) },
    events: eventPublisher(),
    clock: systemClock,
    // The console is served at the platform's address (PUBLIC_BASE_URL; locally the server's own).
    consoleUrl: () => settings.callbackBaseUrl,
  }));
