// What durable runs wait on beyond the engine's own timer and callback: an approval (the approvals area) and one of
// the run user's events (the events area). Registered with the engine wherever it is built, so every function that
// opens a wait or times one out knows these kinds.
import { approvalService } from '#functions/approvals/wiring.js';
import { eventWaits } from '#functions/events/wiring.js';
import type { DurableEngine } from '#functions/scripts/durable/engine.js';
import { createScriptStore } from '#functions/scripts/store.js';

export function registerRunWaitKinds(engine: DurableEngine): void {
  const scripts = createScriptStore();
  engine.registerWaitKind('approval', {
    type: 'approval',
    onTimeout: 'timeout',
    async open(owner, name, args) {
      // A flow's agent loop asks on behalf of the flow's owner, the run's own user.
      const ownerId = owner.flowId && !owner.scriptId ? owner.userId : ((await scripts.get(owner.scriptId))?.ownerId ?? owner.userId);
      const { approval, timeoutSeconds } = await approvalService().request({ ...owner, ownerId }, name, args);
      return { timeoutSeconds, fields: { approvalId: approval.approvalId }, reply: { approvalId: approval.approvalId } };
    },
  });
  engine.registerWaitKind('event', {
    type: 'event',
    onTimeout: 'timeout',
    async open(owner, name, args) {
      const { timeoutSeconds, eventType } = await eventWaits().open(owner, name, args);
      return { timeoutSeconds, fields: { eventType } };
    },
  });
}
