// The run operations span two areas: an execution id names a script's run (the scripts area's run operations) or a
// flow's run (the flows area's), as the one run record's `kind` says, and replay's filter names a script or a flow, so
// they are composed here, above both. The flows' composition loads on the first operation on a flow's run: the scripts area's handlers that serve
// these routes do not carry it at import.
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { runOperations, runsReader } from '#functions/app/scripts/wiring.js';
import { createRunEvents } from '#functions/scripts/runs/run-events.js';
import { canStream } from '#platform/event-stream.js';

export interface ReplayRequest {
  scriptId?: string;
  flowId?: string;
  status?: string;
  from?: string;
  to?: string;
}

const flowsWiring = () => import('#functions/app/flows/wiring.js');
const flowRunOperations = async () => (await flowsWiring()).flowRunOperations();

/** Every run of the caller from the one record; an owner's first read brings in the runs their flows kept before it. */
export const runs = perPlatform((platform: Platform) =>
  runsReader(platform, async (userId) => (await flowsWiring()).flowRunMigration(platform).migrate(userId)),
);

/** The caller's run by its record's kind (another user's, or an unknown id, is NOT_FOUND). */
async function byKind<T>(userId: string, executionId: string, asScriptRun: () => Promise<T>, asFlowRun: () => Promise<T>): Promise<T> {
  const run = await runs().owned(userId, executionId);
  return run.kind === 'flow' ? asFlowRun() : asScriptRun();
}

export const cancelRun = (userId: string, executionId: string): Promise<void> =>
  byKind(
    userId,
    executionId,
    async () => void (await runOperations().cancel(userId, executionId)),
    async () => void (await (await flowRunOperations()).cancel(userId, executionId)),
  );

/** The new execution's id. */
export const rerunRun = (userId: string, executionId: string, fromStep?: string): Promise<string> =>
  byKind(
    userId,
    executionId,
    () => runOperations().rerun(userId, executionId, fromStep),
    async () => (await flowRunOperations()).rerun(userId, executionId, fromStep),
  );

/** The new executions' ids; the input schema lets exactly one of scriptId and flowId through. */
export async function replayRuns(userId: string, { scriptId, flowId, ...filter }: ReplayRequest): Promise<string[]> {
  if (flowId === undefined) return runOperations().replay(userId, { scriptId: scriptId!, ...filter });
  return (await flowRunOperations()).replay(userId, { flowId, ...filter });
}

/** Runs followed live; locally the answer is sent as it is produced, a Lambda sends it whole. */
export const runEvents = perPlatform((platform: Platform) =>
  createRunEvents({ runs: runs(platform), limiter: platform.rateLimiter, clock: platform.clock, streaming: canStream() }),
);
