// The agents area's composition: its ports filled from the resources, scripts, flows and documents facades, and the
// per-user catalog cache, one per platform (a restarted local platform starts with an empty one).
import { documentsApi } from '#functions/app/documents/wiring.js';
import { flowsApi } from '#functions/app/flows/wiring.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { resourcesApi } from '#functions/app/resources/wiring.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { type CatalogCache, createCatalogCache } from '#functions/agents/catalog-cache.js';
import type { CatalogSources, RunAnswer, ToolActions } from '#functions/agents/ports.js';
import type { ExecutionResult } from '#functions/flows/model.js';
import type { Execution } from '#functions/scripts/model.js';
import { dynamoCatalogStamps } from '#platform/catalog-stamps.js';

const waitsOf = (execution: Execution) =>
  (execution.steps ?? [])
    .filter((step) => step.status === 'waiting')
    .map((step) => ({ name: step.name, type: step.type, ...(step.wakeAt && { wakeAt: step.wakeAt }) }));

function runAnswer(execution: Execution): RunAnswer {
  const { executionId, status } = execution;
  if (status === 'running' || status === 'queued') return { executionId, status };
  if (status === 'waiting') return { executionId, status, waitingFor: waitsOf(execution) };
  if (status === 'success') return { executionId, status, output: execution.output };
  return { executionId, status, ...(execution.error && { error: { code: execution.error.code, message: execution.error.message } }) };
}

/** A flow run's result as a tool answers it: a failed flow run is an error, as a script run's is. */
function flowRunAnswer(result: ExecutionResult): RunAnswer {
  const { executionId } = result;
  if (result.status === 'success') return { executionId, status: 'success', output: result.result };
  if (result.status === 'waiting') return { executionId, status: 'waiting' };
  return { executionId, status: 'error', ...(result.error && { error: result.error }) };
}

const catalogSources = (platform: Platform): CatalogSources => ({
  installedResources: (userId) => resourcesApi(platform).installedResources(userId),
  runnableScripts: (userId) => scriptsApi(platform).runnableScripts(userId),
  ownedFlows: (userId) => flowsApi(platform).ownedFlows(userId),
  stamps: (userIds) => dynamoCatalogStamps.read(userIds),
  documentSearchInput: documentsApi(platform).searchInputSchema,
});

export const catalogCache = perPlatform((platform: Platform): CatalogCache => createCatalogCache(catalogSources(platform)));

export const toolActions = (baseUrl: string): ToolActions => ({
  callResource: (caller, call) => resourcesApi().caller.callWithKey(caller, call),
  async runScript(caller, { scriptId, data, client }) {
    const run = await scriptsApi().runWithinBound({ scriptId, userId: caller.userId, data, trigger: { type: 'mcp', client }, viaApi: true });
    if ('ended' in run) return runAnswer(run.ended.execution);
    const stored = run.running.status === 'waiting' ? await scriptsApi().scriptRun(run.running.executionId) : undefined;
    return runAnswer(stored ?? run.running);
  },
  async runFlow(caller, { flowId, client }) {
    const run = await flowsApi().runFlow(caller, flowId, client);
    return 'ended' in run ? flowRunAnswer(run.ended) : run.running;
  },
  async getRun(caller, executionId) {
    const run = await scriptsApi().scriptRun(executionId);
    return run && run.userId === caller.userId ? runAnswer(run) : undefined;
  },
  searchMarketplace: (query) => resourcesApi().marketplace(query),
  installResource: (caller, resourceId) => resourcesApi().installResource(caller, resourceId, baseUrl),
  searchDocuments: (caller, query) => documentsApi().search(caller, query),
});
