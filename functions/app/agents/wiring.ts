// The agents area's composition: its ports filled from the resources and scripts facades.
import { resourcesApi } from '#functions/app/resources/wiring.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import type { CatalogSources, RunAnswer, ToolActions } from '#functions/agents/ports.js';
import type { Execution } from '#functions/scripts/model.js';

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

export const catalogSources = (): CatalogSources => ({
  installedResources: (userId) => resourcesApi().installedResources(userId),
  runnableScripts: (userId) => scriptsApi().runnableScripts(userId),
});

export const toolActions = (baseUrl: string): ToolActions => ({
  callResource: (caller, call) => resourcesApi().caller.callWithKey(caller, call),
  async runScript(caller, { scriptId, data, client }) {
    const run = await scriptsApi().runWithinBound({ scriptId, userId: caller.userId, data, trigger: { type: 'mcp', client }, viaApi: true });
    if ('ended' in run) return runAnswer(run.ended.execution);
    const stored = run.running.status === 'waiting' ? await scriptsApi().scriptRun(run.running.executionId) : undefined;
    return runAnswer(stored ?? run.running);
  },
  async getRun(caller, executionId) {
    const run = await scriptsApi().scriptRun(executionId);
    return run && run.userId === caller.userId ? runAnswer(run) : undefined;
  },
  searchMarketplace: (query) => resourcesApi().marketplace(query),
  installResource: (caller, resourceId) => resourcesApi().installResource(caller, resourceId, baseUrl),
});
