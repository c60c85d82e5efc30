import { withBackgroundRuns } from '#platform/background-handler.js';
import { Reply, httpHandler } from '#platform/http.js';
import { scriptLongRuns } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import type { AdmittedRun } from '#functions/scripts/runs/runner.js';
import { throwIfStoppedByLimit } from '#functions/scripts/runs/run-failures.js';
import { runningView, sdk } from '#functions/scripts/views/views.js';

export const handler = withBackgroundRuns(
  httpHandler(scriptRoutes.executeScript, async ({ input, caller }) => {
    const run = await scriptLongRuns().execute({ scriptId: input.scriptId, userId: caller.userId, data: input.data, trigger: input.trigger, viaApi: true });
    if ('running' in run) return Reply.data(runningView(run.running), 202);
    throwIfStoppedByLimit(run.ended.execution);
    return sdk.execution(run.ended.execution, run.ended.logLines, run.ended.output);
  }),
  (job: AdmittedRun) => scriptLongRuns().runJob(job),
);
