// Replay spans two areas, chosen by its filter: a script's runs (the scripts area's run operations) or a flow's
// executions (the flows area's replays), so it is composed here, above both. The flows' composition loads on the first
// replay of a flow: the scripts area's handler that serves replay does not carry it at import.
import { runOperations } from '#functions/app/scripts/wiring.js';

export interface ReplayRequest {
  scriptId?: string;
  flowId?: string;
  status?: string;
  from?: string;
  to?: string;
}

/** The new executions' ids; the input schema lets exactly one of scriptId and flowId through. */
export async function replayRuns(userId: string, { scriptId, flowId, ...filter }: ReplayRequest): Promise<string[]> {
  if (flowId === undefined) return runOperations().replay(userId, { scriptId: scriptId!, ...filter });
  const { flowReplays } = await import('#functions/app/flows/wiring.js');
  return flowReplays().replay(userId, { flowId, ...filter });
}
