// Production implementations of the flows area's ports, on the scripts and resources areas, and the area's
// services with their production dependencies.
import { createDeliveryStore } from '#functions/events/delivery-store.js';
import { resourceCaller } from '#functions/resources/wiring.js';
import { createInstallationStore } from '#functions/resources/installation-store.js';
import { createResourceStore } from '#functions/resources/store.js';
import { createVersionCache } from '#functions/resources/versions.js';
import { settledRun } from '#functions/scripts/model.js';
import { scriptAccess, scriptRunner } from '#functions/scripts/wiring.js';
import { createExecutionStore as createScriptExecutionStore } from '#functions/scripts/runs/execution-store.js';
import { createScriptStore } from '#functions/scripts/store.js';
import { backgroundRuns, eventPublisher, liveScheduler, liveFlowSettings, oneShotScheduler, rateLimiter } from '#functions/app/platform.js';
import { settings } from '#platform/settings.js';
import { languageModel } from '#adapters/llm.js';
import { systemClock } from '#platform/clock.js';
import { AppError } from '#platform/errors.js';
import type { EventPublisher, OneShotSchedulerPort } from '#platform/ports.js';
import { createExecutionStore } from './execution-store.js';
import { createExecutor, realDeadline, realWait } from './executor.js';
import { type FlowRuns, createFlowRuns } from './flow-runs.js';
import type { FlowScriptRunner } from './ports.js';
import { createRunHistory } from './run-history.js';
import { type FlowEventConsumer, createFlowEventConsumer } from './event-consumer.js';
import { type FlowService, createFlowService } from './service.js';
import { createFlowStore } from './store.js';
import { createToolCatalog } from './tools.js';
import { type FlowLongRuns, createFlowLongRuns } from './long-runs.js';

/**
 * Direct flows and script tools run through the scripts area's runner, with trigger type `flow` (a run waits there
 * for one of its script's slots); who may name a script is the scripts area's access rule.
 */
export function flowScriptRunner(): FlowScriptRunner {
  const access = scriptAccess();
  return {
    async canRun(userId, scriptId) {
      try {
        await access.runnable(userId, scriptId);
        return true;
      } catch (error) {
        if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false;
        throw error;
      }
    },
    async run({ scriptId, userId, data, flowId, eventType }) {
      const { execution, logs, output } = await scriptRunner().execute({
        scriptId,
        userId,
        data,
        trigger: { type: 'flow', source: flowId, ...(eventType && { event: eventType }) },
      });
      return {
        executionId: execution.executionId,
        status: execution.status === 'success' ? 'success' : execution.status === 'timeout' ? 'timeout' : 'error',
        noOp: execution.noOp === true,
        output,
        error: execution.error && { code: execution.error.code, message: execution.error.message },
        logs,
        cost: execution.cost,
      };
    },
  };
}

function toolCatalog(scripts: FlowScriptRunner) {
  const installations = createInstallationStore();
  const versions = createVersionCache(createResourceStore());
  const scriptStore = createScriptStore();
  return createToolCatalog({
    async installedResources(userId) {
      const installed = await installations.listByUser(userId);
      return Promise.all(
        installed.map(async (item) => ({
          resourceId: item.resourceId,
          name: item.resourceName,
          methods: (await versions.get(item.resourceId, item.version)).endpoint.methods,
        })),
      );
    },
    ownedScripts: async (userId) => (await scriptStore.listByOwner(userId)).map(({ scriptId, name, description }) => ({ scriptId, name, description })),
    resources: resourceCaller,
    scripts,
  });
}

// Resolved per call: local adapters are replaced when the local platform restarts in-process.
const oneShotPort: OneShotSchedulerPort = { putOnce: (once) => oneShotScheduler().putOnce(once), cancel: (name) => oneShotScheduler().cancel(name) };
const publisherPort: EventPublisher = { publish: (event) => eventPublisher().publish(event) };

let runs: FlowRuns | undefined;
export const flowRuns = (): FlowRuns => {
  if (!runs) {
    const scripts = flowScriptRunner();
    runs = createFlowRuns({
      flows: createFlowStore(),
      executions: createExecutionStore(),
      executor: createExecutor({
        scripts,
        tools: toolCatalog(scripts),
        model: () => languageModel(liveFlowSettings().llm),
        clock: systemClock,
        deadline: realDeadline,
        wait: realWait,
      }),
      scheduler: liveScheduler,
      oneShots: oneShotPort,
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
    ledger: createDeliveryStore(systemClock),
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
    oneShots: oneShotPort,
    longRuns: flowLongRuns(),
    clock: systemClock,
    llmConfigured: () => languageModel(liveFlowSettings().llm) !== undefined,
  }));

let consumer: FlowEventConsumer | undefined;
/** The bus consumer: the Lambda target of the flows rule on AWS, a listener of the in-process bus locally. */
export const flowEventConsumer = (): FlowEventConsumer =>
  (consumer ??= createFlowEventConsumer({
    flows: createFlowStore(),
    executions: createExecutionStore(),
    runs: flowRuns(),
    ledger: createDeliveryStore(systemClock),
    clock: systemClock,
  }));

let history: ReturnType<typeof createRunHistory> | undefined;
/** The run history reads the scripts area's runs beside the flows' own results. */
export const runHistory = () => {
  if (history) return history;
  const [scriptRuns, flows, results] = [createScriptExecutionStore(), createFlowStore(), createExecutionStore()];
  return (history = createRunHistory({
    scriptRuns: async (userId, range) => {
      const now = systemClock.nowIso();
      return (await scriptRuns.list({ userId, startDate: range.startDate, endDate: range.endDate })).map((run) => settledRun(run, now));
    },
    flows: (userId) => flows.listByUser(userId, ['flowId', 'scriptId', 'trigger']),
    flowResults: (flowId) => results.listResults(flowId, systemClock.now()),
  }));
};
