// Replay spans two areas, chosen by its filter: a script's runs (the scripts area's run operations) or a flow's
// executions (the flows area's replays), so it is composed here, above both.
import { flowReplays } from '#functions/app/flows/wiring.js';
import { runOperations } from '#functions/app/scripts/wiring.js';

export interface ReplayRequest {
  scriptId?: string;
  flowId?: string;
  status?: string;
  from?: string;
  to?: string;
}

/** The new executions' ids; the input schema lets exactly one of scriptId and flowId through. */
export const replayRuns = (userId: string, { scriptId, flowId, ...filter }: ReplayRequest): Promise<string[]> =>
  flowId !== undefined ? flowReplays().replay(userId, { flowId, ...filter }) : runOperations().replay(userId, { scriptId: scriptId!, ...filter });
