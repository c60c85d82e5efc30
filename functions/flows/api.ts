// The flows area's facade: which script a flow runs (getFlowScript), pointing the flow at the copy that
// modifyFlowScript makes of a script the caller does not own, and a user's flows listed and run (agents' tools).
import type { Caller } from '#platform/caller.js';
import { systemClock } from '#platform/clock.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { nextRevision } from './model.js';
import type { AdmittedFlowRun } from './flow-runs.js';
import type { FlowLongRuns } from './long-runs.js';
import type { FlowService } from './service.js';
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

/** What other areas may do with a user's flows: list them and run one now, as runFlow does. */
export function createFlowsApi(service: Pick<FlowService, 'listOwned' | 'run'>, longRuns: Pick<FlowLongRuns, 'runJob'>) {
  return {
    ownedFlows: service.listOwned,
    /** runFlow for an MCP client's flow tool: the run's record names the client. */
    runFlow: (caller: Caller, flowId: string, client: string) => service.run(caller, flowId, client),
    /** The background half of runFlow, for the function's own asynchronous invocation. */
    runJob: (job: AdmittedFlowRun) => longRuns.runJob(job),
  };
}

export type FlowsApi = ReturnType<typeof createFlowsApi>;
