import { withBackgroundRuns } from '#platform/background-handler.js';
import { Reply, httpHandler } from '#platform/http.js';
import type { AdmittedFlowRun } from '#functions/flows/flow-runs.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { flowLongRuns, flowService } from '../wiring.js';

export const handler = withBackgroundRuns(
  httpHandler(flowRoutes.runFlow, async ({ input, caller }) => {
    const run = await flowService().run(caller, input.assignmentId);
    if ('running' in run) return Reply.data({ executionId: run.running.executionId, status: 'running' }, 202);
    // A tool call waits for its approval: the run continues after the decision.
    return run.ended.status === 'waiting' ? Reply.data({ executionId: run.ended.executionId, status: 'waiting' }, 202) : run.ended;
  }),
  (job: AdmittedFlowRun) => flowLongRuns().runJob(job),
);
