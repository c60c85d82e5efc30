// The flows area's facade: which script a flow runs (getFlowScript), and pointing the flow at the copy that
// modifyFlowScript makes of a script the caller does not own.
import { systemClock } from '#platform/clock.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { nextRevision } from './model.js';
import { createFlowStore } from './store.js';

const attempts = 5;

/** The flow's script, if `userId` owns the flow; undefined for unknown flows and other users' flows. */
export async function scriptOfFlow(userId: string, flowId: string): Promise<{ scriptId: string } | undefined> {
  const flow = await createFlowStore().get(flowId);
  return flow && flow.userId === userId && flow.scriptId ? { scriptId: flow.scriptId } : undefined;
}

export async function repointFlow(userId: string, flowId: string, scriptId: string): Promise<void> {
  const flows = createFlowStore();
  for (let attempt = 0; attempt < attempts; attempt++) {
    const flow = await flows.get(flowId);
    if (!flow || flow.userId !== userId) throw new NotFoundError('flowId', flowId, 'flow');
    if (await flows.update(flow, { scriptId, updatedAt: nextRevision(flow.updatedAt, systemClock.nowIso()) })) return;
  }
  throw new ConflictError(`flow ${flowId} changed meanwhile; try again`, { flowId });
}
