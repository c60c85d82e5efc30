// The flow operations of the interface and their rules: validation beyond the schemas (cron, condition trees, who may
// run which script), the per-user limits, the state machine (active <-> paused; delete from any state), the
// schedule that follows the flow, and ownership on every read and write (others' flows are NOT_FOUND).
import type { z } from 'zod';
import type { CatalogStamps } from '#platform/catalog-stamps.js';
import type { Clock } from '#platform/clock.js';
import { parseCron } from '#platform/cron.js';
import { ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId } from '#platform/ids.js';
import type { SchedulerPort } from '#platform/ports.js';
import { compileFlowConditions } from './conditions.js';
import type { ExecutionStore } from './execution-store.js';
import type { FlowLongRuns } from './long-runs.js';
import { flowSchedule, flowScheduleName, retryName } from './internal-events.js';
import {
  type ExecutionResult,
  type ExecutionType,
  type FlowItem,
  type FlowTrigger,
  eventKeyOf,
  flowLimits,
  flowView,
  flowWarnings,
  nextRevision,
} from './model.js';
import type { FlowScriptRunner } from './ports.js';
import type { CreateEventFlowInput, CreateTimeFlowInput, SearchFlowsInput, UpdateFlowInput } from './schemas.js';
import { createFlowSearch } from './search.js';
import type { FlowStore } from './store.js';

export interface FlowServiceDeps {
  flows: FlowStore;
  executions: ExecutionStore;
  scripts: Pick<FlowScriptRunner, 'canRun'>;
  scheduler: SchedulerPort;
  /** runFlow: within the run wait, or on in the background. */
  longRuns: Pick<FlowLongRuns, 'run'>;
  clock: Clock;
  /** Whether a language model is configured now: an llm flow is still created without one, with a warning, and its runs fail. */
  llmConfigured: () => boolean;
  /** A flow created, changed or deleted changes its owner's agent tools. */
  catalog: Pick<CatalogStamps, 'changed'>;
}

/** Optimistic writes that lost to a concurrent change are tried again this many times. */
const attempts = 5;
const dayMs = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type ApprovalRules = Pick<FlowItem, 'approvalRequired' | 'approvalAboveUsd' | 'mcpServers'>;

const onlyLlm = (field: string, value: unknown) => new ValidationError(field, value, 'only llm flows call tools (and hold them for approval)');

/** The approval fields given, for a flow of `executionType`: a direct flow calls no tools, so it takes none. */
function approvalRules(executionType: ExecutionType, input: ApprovalRules): ApprovalRules {
  for (const field of ['approvalRequired', 'approvalAboveUsd', 'mcpServers'] as const)
    if (input[field] !== undefined && executionType !== 'llm') throw onlyLlm(field, input[field]);
  return {
    ...(input.mcpServers !== undefined && { mcpServers: input.mcpServers }),
    ...(input.approvalRequired !== undefined && { approvalRequired: input.approvalRequired }),
    ...(input.approvalAboveUsd !== undefined && { approvalAboveUsd: input.approvalAboveUsd }),
  };
}

export function createFlowService(deps: FlowServiceDeps) {
  const { flows, clock } = deps;
  const search = createFlowSearch(flows, deps.llmConfigured);

  async function owned(caller: Caller, flowId: string): Promise<FlowItem> {
    const flow = await flows.get(flowId);
    if (!flow || flow.userId !== caller.userId) throw new NotFoundError('assignmentId', flowId, 'flow');
    return flow;
  }

  const after = (previous: string) => nextRevision(previous, clock.nowIso());

  // Read per answer: a model configured (or removed) later changes the warning without touching the flow.
  const view = (flow: FlowItem, results: ExecutionResult[]) => flowView(flow, results, flowWarnings(flow, deps.llmConfigured()));

  function requirePromptForLlm(executionType: ExecutionType, prompt: string | undefined) {
    if (executionType === 'llm' && prompt === undefined)
      throw new ValidationError('prompt', null, 'an llm flow follows its prompt: give one, or use executionType "direct" to run the script alone');
  }

  async function requireRunnable(userId: string, scriptId: string) {
    if (!(await deps.scripts.canRun(userId, scriptId))) throw new NotFoundError('scriptId', scriptId, 'script');
  }

  /** Stores a new flow within the interface's limits: 1,000 per user, 100 created per UTC day. */
  async function admit(flow: FlowItem): Promise<void> {
    for (let attempt = 0; attempt < attempts; attempt++) {
      const now = clock.now();
      const today = utcDay(now);
      const owner = await flows.getOwner(flow.userId);
      const startsDay = owner?.createdDay !== today;
      const createdOnDay = owner && !startsDay ? owner.createdOnDay : 0;
      if ((owner?.flowCount ?? 0) >= flowLimits.flowsPerUser)
        throw new ConflictError(`a user has at most ${flowLimits.flowsPerUser} flows; delete one first`, { limit: flowLimits.flowsPerUser });
      if (createdOnDay >= flowLimits.createdPerDay) {
        const retryAfter = Math.ceil((Math.floor(now / dayMs) * dayMs + dayMs - now) / 1000);
        throw new TooManyRequestsError('DAILY_LIMIT_EXCEEDED', `at most ${flowLimits.createdPerDay} flows can be created per day (UTC)`, retryAfter, {
          limit: flowLimits.createdPerDay,
        });
      }
      const firstFlow = (owner?.flowCount ?? 0) === 0 && !owner?.executionsIndexed;
      if (await flows.create(flow, today, startsDay, { flows: flowLimits.flowsPerUser, perDay: flowLimits.createdPerDay }, firstFlow)) return;
    }
    throw new ConflictError('flows of this user changed meanwhile; try again');
  }

  function newFlow(
    caller: Caller,
    fields: Pick<FlowItem, 'title' | 'description' | 'scope' | 'trigger' | 'scriptId' | 'executionType' | 'prompt' | 'recommendedTools'> & ApprovalRules,
  ): FlowItem {
    const now = clock.nowIso();
    const flow: FlowItem = {
      flowId: newId('flw'),
      userId: caller.userId,
      status: 'active',
      ...fields,
      executionCount: 0,
      lastExecutedAt: null,
      createdAt: now,
      updatedAt: now,
      runs: {},
      scriptFailures: 0,
    };
    if (fields.trigger.type === 'event') flow.eventKey = eventKeyOf(caller.userId, fields.trigger.config.eventType);
    return flow;
  }

  /** Re-reads and re-applies a change that lost to a concurrent one (an execution pausing the flow, another edit). */
  async function changeOwned<T>(caller: Caller, flowId: string, change: (flow: FlowItem) => Promise<T | undefined>): Promise<T> {
    for (let attempt = 0; attempt < attempts; attempt++) {
      const done = await change(await owned(caller, flowId));
      if (done !== undefined) return done;
    }
    throw new ConflictError(`flow ${flowId} changed meanwhile; read it again and retry`, { assignmentId: flowId });
  }

  return {
    async createTimeFlow(caller: Caller, input: z.output<typeof CreateTimeFlowInput>) {
      const cron = parseCron(input.schedule, 'schedule');
      const executionType = input.executionType ?? (input.prompt === undefined ? 'direct' : 'llm');
      requirePromptForLlm(executionType, input.prompt);
      const recommendedTools = input.recommendedTools ?? [];
      if (executionType === 'direct' && recommendedTools.length)
        throw new ValidationError('recommendedTools', input.recommendedTools, 'only llm flows offer tools to a model');
      await requireRunnable(caller.userId, input.scriptId);
      const flow = newFlow(caller, {
        ...approvalRules(executionType, input),
        title: input.title,
        description: input.description,
        scope: input.scope,
        trigger: { type: 'time', config: { cronExpression: cron.expression } },
        scriptId: input.scriptId,
        executionType,
        prompt: input.prompt ?? null,
        recommendedTools,
      });
      await admit(flow);
      try {
        await deps.scheduler.put(flowSchedule({ ...flow, cronExpression: cron.expression }, true));
      } catch (error) {
        await flows.remove(flow);
        throw error;
      }
      await deps.catalog.changed(caller.userId);
      return view(flow, []);
    },

    async createEventFlow(caller: Caller, input: z.output<typeof CreateEventFlowInput>) {
      compileFlowConditions(input.conditions, input.eventType);
      if (input.executionType === 'direct' && !input.scriptId) throw new ValidationError('scriptId', null, 'a direct flow names the scriptId it runs');
      if (input.executionType === 'llm' && input.scriptId)
        throw new ValidationError('scriptId', input.scriptId, 'an llm flow runs no script of its own; name scripts in recommendedTools');
      requirePromptForLlm(input.executionType, input.prompt);
      if (input.scriptId) await requireRunnable(caller.userId, input.scriptId);
      const flow = newFlow(caller, {
        ...approvalRules(input.executionType, input),
        title: input.title,
        description: input.description,
        scope: input.scope,
        trigger: { type: 'event', config: { eventType: input.eventType, rootCondition: input.conditions } },
        scriptId: input.scriptId ?? null,
        executionType: input.executionType,
        prompt: input.prompt ?? null,
        recommendedTools: input.recommendedTools,
      });
      await admit(flow);
      await deps.catalog.changed(caller.userId);
      return view(flow, []);
    },

    async get(caller: Caller, flowId: string) {
      const flow = await owned(caller, flowId);
      return view(flow, await deps.executions.listResults(flowId, clock.now()));
    },

    async update(caller: Caller, input: z.output<typeof UpdateFlowInput>) {
      const cron = input.schedule === undefined ? undefined : parseCron(input.schedule, 'schedule');
      const updated = await changeOwned(caller, input.assignmentId, async (flow) => {
        const patch: Partial<FlowItem> = {
          ...(input.title !== undefined && { title: input.title }),
          ...(input.description !== undefined && { description: input.description }),
        };
        if (cron) {
          if (flow.trigger.type !== 'time') throw new ValidationError('schedule', input.schedule, 'only time flows have a schedule');
          patch.trigger = { type: 'time', config: { cronExpression: cron.expression } };
        }
        if (input.conditions !== undefined) {
          if (flow.trigger.type !== 'event') throw new ValidationError('conditions', input.conditions, 'only event flows have conditions');
          compileFlowConditions(input.conditions, flow.trigger.config.eventType);
          patch.trigger = { type: 'event', config: { eventType: flow.trigger.config.eventType, rootCondition: input.conditions } };
        }
        if (input.prompt !== undefined && flow.trigger.type === 'time' && flow.executionType === 'direct')
          throw new ValidationError('prompt', input.prompt, 'a direct time flow runs its script and follows no prompt');
        if (input.prompt !== undefined) patch.prompt = input.prompt;
        if (input.recommendedTools !== undefined && flow.executionType !== 'llm')
          throw new ValidationError('recommendedTools', input.recommendedTools, 'only llm flows offer tools to a model');
        if (input.recommendedTools !== undefined) patch.recommendedTools = input.recommendedTools;
        const remove: (keyof FlowItem)[] = input.approvalAboveUsd === null ? ['approvalAboveUsd'] : [];
        Object.assign(patch, approvalRules(flow.executionType, { ...input, approvalAboveUsd: input.approvalAboveUsd ?? undefined }));
        if (remove.length && flow.executionType !== 'llm') throw onlyLlm('approvalAboveUsd', null);
        patch.updatedAt = after(flow.updatedAt);
        if (!(await flows.update(flow, patch, remove))) return undefined;
        const next = { ...flow, ...patch } as FlowItem;
        if (cron && next.trigger.type === 'time') {
          try {
            await deps.scheduler.put(flowSchedule({ ...next, cronExpression: cron.expression }, next.status === 'active'));
          } catch (error) {
            await flows.update({ ...flow, updatedAt: patch.updatedAt }, { trigger: flow.trigger, updatedAt: after(patch.updatedAt) });
            throw error;
          }
        }
        return { id: next.flowId, title: next.title, description: next.description, trigger: next.trigger, updatedAt: next.updatedAt };
      });
      await deps.catalog.changed(caller.userId);
      return updated;
    },

    async pause(caller: Caller, flowId: string) {
      return changeOwned(caller, flowId, async (flow) => {
        if (flow.status !== 'active') throw new ConflictError(`flow ${flowId} is ${flow.status}, not active`, { assignmentId: flowId, status: flow.status });
        const pausedAt = after(flow.updatedAt);
        if (!(await flows.update(flow, { status: 'paused', pausedAt, updatedAt: pausedAt }, ['eventKey']))) return undefined;
        // Disabled after the record: a firing in between finds the flow paused and does nothing.
        if (flow.trigger.type === 'time') await deps.scheduler.put(flowSchedule({ ...flow, cronExpression: flow.trigger.config.cronExpression }, false));
        return { id: flowId, status: 'paused' as const, pausedAt };
      });
    },

    async resume(caller: Caller, flowId: string) {
      return changeOwned(caller, flowId, async (flow) => {
        if (flow.status !== 'paused') throw new ConflictError(`flow ${flowId} is ${flow.status}, not paused`, { assignmentId: flowId, status: flow.status });
        // Enabled before the record: until the record says active, a firing finds the flow paused and does nothing.
        if (flow.trigger.type === 'time') await deps.scheduler.put(flowSchedule({ ...flow, cronExpression: flow.trigger.config.cronExpression }, true));
        const resumedAt = after(flow.updatedAt);
        const trigger: FlowTrigger = flow.trigger;
        const patch: Partial<FlowItem> = {
          status: 'active',
          resumedAt,
          updatedAt: resumedAt,
          scriptFailures: 0,
          ...(trigger.type === 'event' && { eventKey: eventKeyOf(flow.userId, trigger.config.eventType) }),
        };
        if (!(await flows.update(flow, patch))) return undefined;
        return { id: flowId, status: 'active' as const, resumedAt };
      });
    },

    /** From any state; the schedule, pending retries and the execution history go with it. */
    async remove(caller: Caller, flowId: string) {
      const flow = await changeOwned(caller, flowId, async (current) => ((await flows.remove(current)) ? current : undefined));
      if (flow.trigger.type === 'time') await deps.scheduler.remove(flowScheduleName(flowId));
      for (const retry of await deps.executions.listRetries(flowId)) await deps.scheduler.remove(retryName(retry.originId, retry.attempt));
      await deps.executions.removeAll(flowId);
      await deps.catalog.changed(caller.userId);
      return { id: flowId, deleted: true as const, deletedAt: clock.nowIso() };
    },

    search: (caller: Caller, input: SearchFlowsInput) => search.search(caller.userId, input),

    /** The user's flows as an agent's tools show them. */
    async listOwned(userId: string) {
      return (await flows.listByUser(userId, ['flowId', 'title', 'description'])).map(({ flowId, title, description }) => ({ flowId, title, description }));
    },

    /** runFlow (and a flow tool of an MCP `client`): runs an active or paused flow now; its result, or `running` past the run wait. */
    async run(caller: Caller, flowId: string, client?: string) {
      await owned(caller, flowId);
      return deps.longRuns.run(caller, flowId, client);
    },
  };
}

export type FlowService = ReturnType<typeof createFlowService>;
