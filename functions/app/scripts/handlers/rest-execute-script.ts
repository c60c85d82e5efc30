import { withBackgroundRuns } from '#platform/background-handler.js';
import { Reply, httpHandler } from '#platform/http.js';
import { scriptLongRuns } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import type { AdmittedRun } from '#functions/scripts/runs/runner.js';
import { throwIfRestFailure } from '#functions/scripts/runs/run-failures.js';
import { rest, runningView } from '#functions/scripts/views/views.js';

export const handler = withBackgroundRuns(
  httpHandler(scriptRoutes.restExecuteScript, async ({ input, caller }) => {
    const run = await scriptLongRuns().execute({
      scriptId: input.scriptId,
      userId: caller.userId,
      data: input.data,
      trigger: { type: 'manual', source: 'api' },
      viaApi: true,
    });
    if ('running' in run) return Reply.data(runningView(run.running), 202);
    throwIfRestFailure(run.ended.execution, run.ended.output);
    return rest.executed(run.ended);
  }),
  (job: AdmittedRun) => scriptLongRuns().runJob(job),
);
