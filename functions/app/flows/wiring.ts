// Production implementations of the flows area's ports, on the scripts and resources areas, and the area's
// services with their production dependencies.
import { type TargetKind, deliveryLedger } from '#functions/events/api.js';
import { installedResources, resourceCaller } from '#functions/resources/api.js';
import { countScriptRuns, inProcessDurableRuns, mayRun, ownedScripts, runScript, scriptRun, scriptRuns } from '#functions/scripts/api.js';
import { backgroundRuns } from '#functions/app/background-runs.js';
import { eventPublisher } from '#functions/app/event-publisher.js';
import { liveScheduler } from '#functions/app/schedulers.js';
import { liveFlowSettings, rateLimiter } from '#functions/app/platform.js';
import { settings } from '#platform/settings.js';
import { languageModel } from '#adapters/llm.js';
import { systemClock } from '#platform/clock.js';
import type { EventPublisher } from '#platform/ports.js';
import { createExecutionStore } from '#functions/flows/execution-store.js';
import { createExecutor, realDeadline, realWait } from '#functions/flows/executor.js';
import { type FlowRuns, createFlowRuns } from '#functions/flows/flow-runs.js';
import type { FlowScriptRunner } from '#functions/flows/ports.js';
import { createRunHistory } from '#functions/flows/run-history.js';
import { createFlowEventTarget } from '#functions/flows/event-target.js';
import { type FlowService, createFlowService } from '#functions/flows/service.js';
import { createFlowStore } from '#functions/flows/store.js';
import { createToolCatalog } from '#functions/flows/tools.js';
import { type FlowLongRuns, createFlowLongRuns } from '#functions/flows/long-runs.js';
import { type FlowReplays, createFlowReplays } from '#functions/flows/replays.js';

/**
 * Direct flows and script tools run through the scripts area's runner, with trigger type `flow` (a run waits there
 * for one of its script's slots); who may name a script is the scripts area's access rule.
 */
export function flowScriptRunner(): FlowScriptRunner {
  return {
    canRun: mayRun,
    async run({ scriptId, userId, data, flowId, eventType }) {
      const { execution, logs, output } = await runScript({
        scriptId,
        userId,
        data,
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
      const run = await scriptRun(executionId);
      if (!run || run.status === 'running' || run.status === 'waiting') return undefined;
      return {
        executionId,
        status: run.status === 'success' ? 'success' : 'error',
        output: run.output,
        error: run.error && { code: run.error.code, message: run.error.message },
        cost: run.cost,
        finishedAt: run.finishedAt ?? systemClock.nowIso(),
      };
    },
  };
}

function toolCatalog(scripts: FlowScriptRunner) {
  return createToolCatalog({
    installedResources,
    ownedScripts,
    resources: resourceCaller,
    scripts,
  });
}

// Resolved per call: local adapters are replaced when the local platform restarts in-process.
const publisherPort: EventPublisher = { publish: (event) => eventPublisher().publish(event) };

/** The durable engine's runner name of flow runs: it continues them after their tool call's approval. */
const flowRunner = 'flow';

let runs: FlowRuns | undefined;
/** Built before any durable wake-up is handled (functions/app/handlers/wake-durable-run.ts): it registers the flows' resumer. */
export const flowRuns = (): FlowRuns => {
  if (!runs) {
    const scripts = flowScriptRunner();
    const durable = inProcessDurableRuns(flowRunner, async (payload, invocation) => void (await flowRuns().resume(payload, invocation)));
    runs = createFlowRuns({
      flows: createFlowStore(),
      executions: createExecutionStore(),
      scripts,
      executor: createExecutor({
        scripts,
        tools: toolCatalog(scripts),
        model: () => languageModel(liveFlowSettings().llm),
        durable,
        clock: systemClock,
        deadline: realDeadline,
        wait: realWait,
      }),
      scheduler: liveScheduler,
      publisher: publisherPort,
      limiter: rateLimiter,
      clock: systemClock,
    });
  }
  return runs;
};

let longRuns: FlowLongRuns | undefined;
export const flowLongRuns = (): FlowLongRuns =>
  (longRuns ??= createFlowLongRuns({
    runs: flowRuns(),
    executions: createExecutionStore(),
    ledger: deliveryLedger(systemClock),
    background: backgroundRuns,
    boundMs: () => settings.runWaitMs,
    clock: systemClock,
  }));

let service: FlowService | undefined;
export const flowService = (): FlowService =>
  (service ??= createFlowService({
    flows: createFlowStore(),
    executions: createExecutionStore(),
    scripts: flowScriptRunner(),
    scheduler: liveScheduler,
    longRuns: flowLongRuns(),
    clock: systemClock,
    llmConfigured: () => languageModel(liveFlowSettings().llm) !== undefined,
  }));

let eventTarget: TargetKind | undefined;
/** The trigger pipeline's event-flow kind: event flows, time flows' firings and retries coming due. */
export const flowEventTarget = (): TargetKind =>
  (eventTarget ??= createFlowEventTarget({ flows: createFlowStore(), executions: createExecutionStore(), runs: flowRuns() }));

let history: ReturnType<typeof createRunHistory> | undefined;
/** The run history reads the scripts area's runs beside the flows' own results. */
export const runHistory = () => {
  if (history) return history;
  const [flows, results] = [createFlowStore(), createExecutionStore()];
  return (history = createRunHistory({
    scriptRuns,
    countScriptRuns,
    flows: (userId) => flows.listByUser(userId, ['flowId', 'scriptId', 'trigger']),
    flowRuns: (userId, range) => results.listByUser(userId, range, systemClock.now()),
  }));
};

let replays: FlowReplays | undefined;
/** Replay by flowId: each replayed execution through the bus to the flows' rule. */
export const flowReplays = (): FlowReplays =>
  (replays ??= createFlowReplays({ flows: createFlowStore(), executions: createExecutionStore(), publisher: publisherPort, clock: systemClock }));
