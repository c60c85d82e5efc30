// What durable runs wait on beyond the engine's own timer and callback: an approval (the approvals area) and one of
// the run user's events (the events area). Registered with the engine where it is built (the scripts area's
// composition), so every function that opens a wait or times one out knows these kinds.
import type { UserDirectory } from '#functions/approvals/ports.js';
import { createApprovalService, reusableOutcome } from '#functions/approvals/service.js';
import { createApprovalStore } from '#functions/approvals/store.js';
import { type EventWaitResolver, type EventWaits, createEventWaitStore, createEventWaits } from '#functions/events/event-waits.js';
import type { DurableEngine } from '#functions/durable/api.js';
import type { Clock } from '#platform/clock.js';
import type { Platform } from './platform.js';
import type { EventPublisher } from '#platform/ports.js';

export interface RunWaitKindDeps {
  users: UserDirectory;
  events: EventPublisher;
  clock: Clock;
  /** The owner of a script: the approver when the code names none. */
  scriptOwner(scriptId: string): Promise<string | undefined>;
  consoleUrl: () => string;
}

const eventWaitsOf = new WeakMap<Platform, EventWaits>();
/**
 * The platform's one service over runs' event waits: the engine opens them through it (below), the trigger pipeline's
 * wait kind resumes them (the events area's composition). Whichever asks first hands it the durable engine's resolver:
 * the scripts area's composition, which builds the engine, cannot import the events area's without a cycle.
 */
export function runEventWaits(platform: Platform, resolver: EventWaitResolver): EventWaits {
  let waits = eventWaitsOf.get(platform);
  if (!waits)
    eventWaitsOf.set(
      platform,
      (waits = createEventWaits({ store: createEventWaitStore({ cached: platform.settings.kernel.mode === 'local' }), resolver, clock: platform.clock })),
    );
  return waits;
}

export function registerRunWaitKinds(platform: Platform, engine: DurableEngine, deps: RunWaitKindDeps): void {
  const resolver = { resolve: engine.resolveWait };
  const approvals = createApprovalService({ store: createApprovalStore(), waits: resolver, ...deps });
  const eventWaits = runEventWaits(platform, resolver);
  engine.registerWaitKind('approval', {
    type: 'approval',
    onTimeout: 'timeout',
    async open(owner, name, args) {
      // A flow's agent loop asks on behalf of the flow's owner, the run's own user.
      const ownerId = owner.flowId && !owner.scriptId ? owner.userId : ((await deps.scriptOwner(owner.scriptId)) ?? owner.userId);
      const { approval, timeoutSeconds } = await approvals.request({ ...owner, ownerId }, name, args);
      return { timeoutSeconds, fields: { approvalId: approval.approvalId }, reply: { approvalId: approval.approvalId } };
    },
    // A decision holds for its run: a re-run asks again unless the approver let re-runs reuse it.
    reusable: (entry) => entry.status === 'succeeded' && reusableOutcome(entry.result),
    close: (entry, reason) => approvals.cancel(String(entry.fields?.approvalId), reason),
  });
  engine.registerWaitKind('event', {
    type: 'event',
    onTimeout: 'timeout',
    async open(owner, name, args) {
      const { timeoutSeconds, eventType } = await eventWaits.open(owner, name, args);
      return { timeoutSeconds, fields: { eventType } };
    },
    async close({ executionId, userId, name, fields }) {
      if (userId && typeof fields?.eventType === 'string') await eventWaits.close({ executionId, userId }, name, fields.eventType);
    },
  });
}
