// A child run's end settles its parent run directly: a flow's durable script run that had suspended ends in the function
// that resumed it (or cancelled it), which settles the flow run waiting on it there, with no round trip over the bus.
import type { Platform } from '#functions/app/platform.js';
import { createExecutionStore } from '#functions/flows/execution-store.js';
import type { FlowRunRecords } from '#functions/flows/ports.js';
import { createFlowRunPolicy, scriptRunEnd } from '#functions/flows/run-policy.js';
import { createFlowStore } from '#functions/flows/store.js';
import type { Execution } from '#functions/scripts/model.js';

/** Settles the flow run `child` (a script run that had suspended) is the child of, once `child` has ended. */
export async function settleParentRun(platform: Platform, records: FlowRunRecords, child: Execution): Promise<void> {
  if (child.trigger.type !== 'flow' || !child.trigger.source) return;
  const policy = createFlowRunPolicy({
    flows: createFlowStore(),
    executions: createExecutionStore(),
    records,
    scripts: { ended: async (executionId) => (executionId === child.executionId ? scriptRunEnd(child, platform.clock.nowIso()) : undefined) },
    scheduler: platform.scheduler,
    publisher: platform.eventBus,
    clock: platform.clock,
  });
  await policy.scriptRunEnded({ flowId: child.trigger.source, userId: child.userId }, child.executionId);
}
