import { withBackgroundRuns } from '#platform/background-handler.js';
import { Reply, httpHandler } from '#platform/http.js';
import type { AdmittedFlowRun } from '#functions/flows/flow-runs.js';
import { resultView } from '#functions/flows/model.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { flowLongRuns, flowService } from '../wiring.js';

export const handler = withBackgroundRuns(
  httpHandler(flowRoutes.runFlow, async ({ input, caller }) => {
    const run = await flowService().run(caller, input.assignmentId);
    return 'running' in run ? Reply.data(run.running, 202) : resultView(run.ended);
  }),
  (job: AdmittedFlowRun) => flowLongRuns().runJob(job),
);
