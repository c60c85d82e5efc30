// The durable engine as the platform runs it, with the one registry of what a run can wait on: the engine's own timer
// and callback, an approval (declared by the approvals area), one of the run user's events (the events area) and a
// child run (the scripts area's `invoke`). The
// resumers of the kinds of runs (scripts, flows) are declared where wake-ups are handled (durable-wakes.ts), above the
// areas that run them; every module that checkpoints, opens or ends a wait takes the engine from here.
import { accountsApi } from '#functions/app/accounts/wiring.js';
import { createApprovalService } from '#functions/approvals/service.js';
import { createApprovalStore } from '#functions/approvals/store.js';
import { approvalWaitKind } from '#functions/approvals/wait-kind.js';
import { AppError, ValidationError } from '#platform/errors.js';
import {
  type DurableCallbacks,
  type DurableEngine,
  DurableError,
  type Journal,
  callbackWaitKind,
  createCallbacks,
  createDurableEngine,
  createJournal,
  timerWaitKind,
} from '#functions/durable/api.js';
import { type EventWaits, createEventWaitStore, createEventWaits } from '#functions/events/event-waits.js';
import { eventWaitKind } from '#functions/events/wait-kind.js';
import { invokeWaitKind } from '#functions/scripts/durable/child-runs.js';
import { createScriptStore } from '#functions/scripts/store.js';
import { type Platform, perPlatform } from './platform.js';
import { scriptPackageStore } from './script-adapters.js';

/** Durable runs' step results past a journal item's share, in the same blob store as versions' packages (`journal/`). */
export const durableJournal = perPlatform((platform: Platform): Journal => createJournal(() => scriptPackageStore(platform)));

/** The platform's one service over runs' event waits: the engine opens them, the trigger pipeline's wait target resumes them. */
export const runEventWaits = perPlatform(
  (platform: Platform): EventWaits =>
    createEventWaits({
      store: createEventWaitStore({ cached: platform.settings.kernel.mode === 'local' }),
      resolver: { resolve: (executionId, name, outcome) => durableEngine(platform).resolveWait(executionId, name, outcome) },
      clock: platform.clock,
    }),
);

export const durableEngine = perPlatform((platform: Platform): DurableEngine => {
  const { clock, eventBus: bus, scheduler } = platform;
  const consoleUrl = platform.settings.kernel.callbackBaseUrl;
  const approvals = createApprovalService({
    store: createApprovalStore(),
    waits: { resolve: (executionId, name, outcome) => durableEngine(platform).resolveWait(executionId, name, outcome) },
    users: accountsApi(platform),
    events: bus,
    clock,
    consoleUrl,
  });
  const scripts = createScriptStore();
  return createDurableEngine({
    journal: durableJournal(platform),
    limits: platform.settings.scripts.durable,
    oneShots: scheduler,
    bus,
    clock,
    waitKinds: {
      wait: timerWaitKind,
      callback: callbackWaitKind(consoleUrl),
      approval: approvalWaitKind(approvals, async (scriptId) => (await scripts.get(scriptId))?.ownerId),
      event: eventWaitKind(runEventWaits(platform)),
      // The scripts' wiring builds its runner with this engine: its ports are loaded on the first invoke.
      invoke: invokeWaitKind(
        async () => (await import('./scripts/wiring.js')).childRunPorts(platform),
        () => durableEngine(platform),
      ),
    },
  });
});

/** Completing a run's callbacks: the owner's route and the signed URL. */
export const durableCallbacks = perPlatform(
  (platform: Platform): DurableCallbacks => createCallbacks(durableEngine(platform), { journal: durableJournal(platform) }),
);

const httpStatuses: Record<string, number> = { NOT_FOUND: 404, CONFLICT: 409 };

/**
 * A DurableError as the routes answer it (the engine's errors carry no HTTP status): NOT_FOUND 404, CONFLICT 409; a
 * value the caller sent that the engine refuses (a callback's result) VALIDATION_ERROR 400 with the engine's code in
 * its details; any other code 400 as it is. Anything else passes unchanged.
 */
export function atTheEdge(error: unknown): unknown {
  if (!(error instanceof DurableError)) return error;
  const { code, message, details } = error;
  if (httpStatuses[code]) return new AppError(code, httpStatuses[code], message, details);
  if (typeof details?.field === 'string') return new ValidationError(details.field, details.value, message, { code });
  return new AppError(code, 400, message, details);
}
