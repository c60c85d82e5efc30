// The scripts area's FlowScripts port (getFlowScript, modifyFlowScript): which script a flow runs, and pointing
// the flow at the copy that modifyFlowScript makes of a script the caller does not own.
import type { FlowScripts } from '#functions/scripts/ports.js';
import { type Clock, systemClock } from '#platform/clock.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { nextRevision } from './model.js';
import { type FlowStore, createFlowStore } from './store.js';

const attempts = 5;

export function createFlowScripts(flows: FlowStore, clock: Clock): FlowScripts {
  return {
    async scriptOf(userId, flowId) {
      const flow = await flows.get(flowId);
      return flow && flow.userId === userId && flow.scriptId ? { scriptId: flow.scriptId } : undefined;
    },
    async repoint(userId, flowId, scriptId) {
      for (let attempt = 0; attempt < attempts; attempt++) {
        const flow = await flows.get(flowId);
        if (!flow || flow.userId !== userId) throw new NotFoundError('flowId', flowId, 'flow');
        if (await flows.update(flow, { scriptId, updatedAt: nextRevision(flow.updatedAt, clock.nowIso()) })) return;
      }
      throw new ConflictError(`flow ${flowId} changed meanwhile; try again`, { flowId });
    },
  };
}

let port: FlowScripts | undefined;
export const flowScripts = (): FlowScripts => (port ??= createFlowScripts(createFlowStore(), systemClock));
