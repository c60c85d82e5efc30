// Production implementations of the flows area's ports, on the scripts and resources areas, and the area's
// services with their production dependencies.
import { type TargetKind, deliveryLedger } from '#functions/events/api.js';
import { resourcesApi } from '#functions/app/resources/wiring.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { languageModel } from '#adapters/llm.js';
import { type FlowsApi, createFlowsApi } from '#functions/flows/api.js';
import { createExecutionStore } from '#functions/flows/execution-store.js';
import { createExecutor, realDeadline, realWait } from '#functions/flows/executor.js';
import { type FlowRuns, createFlowRuns } from '#functions/flows/flow-runs.js';
import type { DurableFlowRuns, FlowScriptRunner } from '#functions/flows/ports.js';
import type { Resumer } from '#functions/durable/api.js';
import { createFlowEventTarget } from '#functions/flows/event-target.js';
import { dynamoCatalogStamps } from '#platform/catalog-stamps.js';
import { type FlowService, createFlowService } from '#functions/flows/service.js';
import { createFlowStore } from '#functions/flows/store.js';
import { createToolCatalog } from '#functions/flows/tools.js';
import { remoteMcpServers } from '#functions/adapters/mcp-client.js';
import { type FlowLongRuns, createFlowLongRuns } from '#functions/flows/long-runs.js';
import { type FlowRunOperations, createFlowRunOperations } from '#functions/flows/run-operations.js';
import { type FlowRunMigration, createFlowRunMigration } from '#functions/flows/run-records.js';
import { scriptRunEnd } from '#functions/flows/run-policy.js';

/**
 * Direct flows and script tools run through the scripts area's runner, with trigger type `flow` (a run waits there
 * for one of its script's slots); who may name a script is the scripts area's access rule.
 */
export const flowScriptRunner = perPlatform((platform: Platform): FlowScriptRunner => {
  const { clock } = platform;
  const scripts = scriptsApi(platform);
  return {
    canRun: scripts.mayRun,
    async run({ scriptId, userId, data, flowId, eventType, parent }) {
      const { execution, logs, output } = await scripts.runScript({
        scriptId,
        userId,
        data,
        // A flow run is at the top of its tree: its script run's root is the flow run.
        ...(parent && { parent }),
        trigger: { type: 'flow', source: flowId, ...(eventType && { event: eventType }) },
      });
      return {
        executionId: execution.executionId,
        status: execution.status === 'success' || execution.status === 'timeout' || execution.status === 'waiting' ? execution.status : 'error',
        noOp: execution.noOp === true,
        output,
        error: execution.error && { code: execution.error.code, message: execution.error.message },
        logs,
        cost: execution.cost,
      };
    },
    async ended(executionId) {
      const run = await scripts.scriptRun(executionId);
      return run && scriptRunEnd(run, clock.nowIso());
    },
  };
});

function toolCatalog(platform: Platform, scripts: FlowScriptRunner) {
  const resources = resourcesApi(platform);
  return createToolCatalog({
    installedResources: resources.installedResources,
    ownedScripts: scriptsApi(platform).ownedScripts,
    resources: () => resources.caller,
    scripts,
    mcp: remoteMcpServers,
  });
}

/** The durable engine's runner name of flow runs: it continues them after their tool call's approval. */
export const flowRunner = 'flow';

const durableFlowRuns = perPlatform((platform: Platform): DurableFlowRuns => scriptsApi(platform).inProcessDurableRuns(flowRunner));

/** The durable engine's resumer of flow runs (functions/app/durable-wakes.ts): the next invocation of the run's agent loop. */
export const flowResumer =
  (platform: Platform): Resumer =>
  async (run) =>
    void (await flowRuns(platform).resume(run.payload, run.invocation));

export const flowRuns = perPlatform((platform: Platform): FlowRuns => {
  const { clock, settings } = platform;
  const scripts = flowScriptRunner(platform);
  const durable = durableFlowRuns(platform);
  return createFlowRuns({
    flows: createFlowStore(),
    executions: createExecutionStore(),
    records: scriptsApi(platform).flowRunRecords,
    scripts,
    executor: createExecutor({
      scripts,
      tools: toolCatalog(platform, scripts),
      model: () => languageModel(settings.flows.llm),
      durable,
      clock,
      deadline: realDeadline,
      wait: realWait,
    }),
    scheduler: platform.scheduler,
    publisher: platform.eventBus,
    limiter: platform.rateLimiter,
    clock,
  });
});

export const flowLongRuns = perPlatform(
  (platform: Platform): FlowLongRuns =>
    createFlowLongRuns({
      runs: flowRuns(platform),
      executions: createExecutionStore(),
      ledger: deliveryLedger(platform.clock),
      background: platform.backgroundRuns,
      boundMs: platform.settings.kernel.runWaitMs,
      clock: platform.clock,
    }),
);

export const flowService = perPlatform(
  (platform: Platform): FlowService =>
    createFlowService({
      flows: createFlowStore(),
      executions: createExecutionStore(),
      scripts: flowScriptRunner(platform),
      scheduler: platform.scheduler,
      longRuns: flowLongRuns(platform),
      clock: platform.clock,
      llmConfigured: () => languageModel(platform.settings.flows.llm) !== undefined,
      catalog: dynamoCatalogStamps,
    }),
);

/** The flows facade other areas' compositions take. */
export const flowsApi = perPlatform((platform: Platform): FlowsApi => createFlowsApi(flowService(platform), flowLongRuns(platform)));

/** The trigger pipeline's event-flow kind: event flows, time flows' firings and retries coming due. */
export const flowEventTarget = perPlatform(
  (platform: Platform): TargetKind => createFlowEventTarget({ flows: createFlowStore(), executions: createExecutionStore(), runs: flowRuns(platform) }),
);

/** Brings the runs an owner's flows kept in their rings before the one run record into it. */
export const flowRunMigration = perPlatform(
  (platform: Platform): FlowRunMigration =>
    createFlowRunMigration({
      flows: createFlowStore(),
      executions: createExecutionStore(),
      records: scriptsApi(platform).flowRunRecords,
      clock: platform.clock,
    }),
);

/** Cancel, re-run and replay of flows' runs: each re-run or replayed execution through the bus to the flows' rule. */
export const flowRunOperations = perPlatform(
  (platform: Platform): FlowRunOperations =>
    createFlowRunOperations({
      flows: createFlowStore(),
      executions: createExecutionStore(),
      records: scriptsApi(platform).flowRunRecords,
      durable: durableFlowRuns(platform),
      publisher: platform.eventBus,
      clock: platform.clock,
    }),
);
