// The one way a script runs, whatever triggered it (manual, event, schedule, webhook, flow): access, limits
// (manual rate, daily runs, monthly budget, cost per run), its slots (run-slots.ts), the run itself, and its record.
import { performance } from 'node:perf_hooks';
import type { Clock } from '#platform/clock.js';
import { AppError, BudgetExceededError, ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import { runExpiry } from '#platform/run-records.js';
import type { MetricsPort, RateLimiter, ResourceCaller } from '#platform/ports.js';
import { computeCostUsd, msAffordable, roundUsd } from './cost.js';
import type { Deployer, PackageTrees } from './deployer.js';
import type { ExecutionStore } from './execution-store.js';
import { createLiveLog } from './live-logs.js';
import {
  type Execution,
  type ExecutionError,
  type Installation,
  type LogLine,
  type RuntimeLabel,
  type Script,
  type ScriptConfig,
  type ScriptVersion,
  type Trigger,
  logTexts,
} from '../model.js';
import { concurrencyClaim } from './concurrency-key.js';
import type { BudgetSource } from '../ports.js';
import { prepareCode } from './prepare.js';
import { memoryTally, resourceGate } from './resource-gate.js';
import { type RunGrant, runGraceMs } from './run-grant.js';
import type { RunSlots, SlotClaim } from './run-slots.js';
import { runnableScript } from './script-access.js';
import { type PrintedLine, type ScriptRuntime, liveAlias } from './runtime-port.js';
import type { ScriptStore } from '../store.js';
import type { VersionCode } from '../authoring/version-code.js';
import { answeredOutput, storedLogs, storedOutput } from './stored-run.js';
import type { ScriptSettings } from '../settings.js';
import { maxDurableInputBytes } from '../../durable/schemas.js';
import { type RunOrigin, lineageOf } from './run-record.js';
import type { QueuePlace } from '#platform/flow-control.js';
import { gatheringOf } from '#platform/gathering.js';
import type { ScriptGathering } from './gathering.js';

export interface ExecuteRequest {
  scriptId: string;
  /** Whose run it is: the owner, or a user who installed the script; resource calls and costs are theirs. */
  userId: string;
  data: unknown;
  trigger: Trigger;
  /** Came in over the API: counted against the manual executions per minute. */
  viaApi?: boolean;
  /**
   * The run that starts this one as its child (a flow run for its script run, a durable run's `context.invoke`) and the
   * top of that run's tree; an invoked child also names the parent's wait its end settles, and how deep it nests.
   */
  parent?: { parentExecutionId: string; rootExecutionId?: string; parentWait?: string; depth?: number };
  /** The run a rerun or replay was made from. */
  origin?: RunOrigin;
  /** The queued run of a closed debounce or batch window (gathering.ts) that this admission starts. */
  gathered?: string;
  /** A batch's run: every trigger's data, in arrival order (`event.batch`). */
  batch?: unknown[];
}

export interface ExecutionResult {
  execution: Execution;
  /** Every line this invocation printed; the stored record keeps a bounded prefix of the run's. */
  logs: string[];
  /** The same lines with their invocation and step. */
  logLines: LogLine[];
  output: unknown;
}

/** An invocation's printed lines as a result carries them. */
export function resultLogs(lines: LogLine[]): Pick<ExecutionResult, 'logs' | 'logLines'> {
  return { logs: logTexts(lines), logLines: lines };
}

const printedBy = (printed: PrintedLine[], invocation: number) => resultLogs(printed.map((line) => ({ ...line, invocation })));

const dayMs = 24 * 60 * 60 * 1000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const nextUtcMidnight = (ms: number) => Math.floor(ms / dayMs) * dayMs + dayMs;

export const dailyRunsCounter = (scriptId: string, ms: number) => `daily#${scriptId}#${utcDay(ms)}`;
export const monthlySpendCounter = (userId: string, ms: number) => `spend#${userId}#${utcDay(ms).slice(0, 7)}`;
export const manualRunsBucket = (scriptId: string) => `script-manual:${scriptId}`;

const showRunningAfterMs = 1000;
/** A run's input kept on its record for rerun and replay (the record also holds up to 64 KB of output). */
const maxStoredInputBytes = 64 * 1024;

/**
 * How long a run waits for its slots. A manual run is refused at once past the script's 10 (CONCURRENCY_LIMIT, as the
 * interface says); a triggered run waits a while for its turn (its trigger retries it past that); a run of a script
 * with `config.concurrency` waits its turn, as long as a function may live.
 */
export const slotWaitMs = { manual: 0, triggered: 60_000, keyed: 15 * 60_000 } as const;

/**
 * A run that passed every check and holds its place in the day's count: everything its run needs, as JSON (on AWS
 * it travels to the function invoked for it).
 */
export interface AdmittedRun {
  /** Its record while it runs. */
  running: Execution;
  data: unknown;
  batch?: unknown[];
  trigger: Trigger;
  runtime: RuntimeLabel;
  config: ScriptConfig;
  /** `live`, or the built artifact of a test run. */
  qualifier: string;
  customization: Installation['customization'];
  budget: number;
  limitUsd: number;
  limitedBy: 'cost' | 'budget';
  timeoutMs: number;
  dailyCounter: string;
  spendCounter: string;
  admittedAt: number;
  /** How long it may wait for its slots (slotWaitMs). */
  slotWaitMs: number;
  /** A durable run's later invocation: its number, and what the invocations before it added up to. */
  resumed?: { invocation: number; duration: number; cost: number; resourceCalls: number; memoryUsed: number; logBytes?: number };
}

/** How a durable script's run meets its journal (functions/scripts/durable/script-runs.ts). */
export interface DurableRunHooks {
  /** Before an invocation: the journal it carries, and its number. */
  start(admitted: AdmittedRun): Promise<{ journal: unknown; invocation: number }>;
  /** A checkpoint the invocation sends over its resource-call channel. */
  checkpoint(admitted: AdmittedRun, method: string, params: Record<string, unknown>): Promise<unknown>;
  suspended(admitted: AdmittedRun, invocation: number): Promise<void>;
  /** False when the run was cancelled meanwhile: its end is not recorded over the cancellation. */
  finished(admitted: AdmittedRun, invocation: number): Promise<boolean>;
  /** The bound the run went past (a checkpoint was refused), whatever the code did with the refusal. */
  boundExceeded(admitted: AdmittedRun): Promise<ExecutionError | undefined>;
  /** A run that failed: the owner's `platform.execution.failed` event. */
  failed(execution: Execution): Promise<void>;
  /** A run that had suspended, or a child run, ended (recorded already): whoever waits on it hears of it (`output` in full). */
  ended(execution: Execution, output?: unknown): Promise<void>;
}

/** What the runner asks of flow control (flow-control.ts): the gate after admission, and the end of a run. */
export interface RunFlowControl {
  /** The run goes on, or waits as its `queued` record; a skipped run is recorded and thrown as its refusal. */
  enter(admitted: AdmittedRun): Promise<{ go: AdmittedRun } | { queued: Execution }>;
  left(admitted: AdmittedRun): Promise<void>;
}

/** The resource name of checkpoints on the resource-call channel (`#` is not a resource name). */
export const durableChannel = '#durable';

/** What a run that failed outside the script (a refusal of the runtime, an infrastructure error) records. */
const failureOf = (error: unknown): ExecutionError =>
  error instanceof AppError ? { code: error.code, message: error.message } : { code: 'INTERNAL_ERROR', message: 'the run failed unexpectedly' };

/** What a run record holds before its first invocation ends: no outcome, no cost, and its expiry. */
const notYetRun = (createdAt: string) => ({
  output: null,
  error: null,
  duration: 0,
  memoryUsed: 0,
  cost: 0,
  resourceCalls: 0,
  createdAt,
  finishedAt: null,
  expiresAt: runExpiry(createdAt).expiresAt,
});

/** The record of a window's run while it waits for the window to close. */
function queuedRecord(script: Script, request: ExecuteRequest, executionId: string, queue: QueuePlace, createdAt: string): Execution {
  return {
    executionId,
    kind: 'script',
    rootExecutionId: executionId,
    scriptId: script.scriptId,
    userId: request.userId,
    scriptUser: `${script.scriptId}#${request.userId}`,
    version: script.activeVersion ?? script.latestVersion,
    trigger: storedTrigger(request.trigger),
    status: 'queued',
    queue,
    ...notYetRun(createdAt),
  };
}

/** The record names the event (its type or id) rather than holding it: events can be as large as the item may be. */
const storedTrigger = ({ type, source, event, client }: Trigger): Trigger => {
  const named = event !== null && typeof event === 'object' ? ((event as { type?: unknown; id?: unknown }).type ?? (event as { id?: unknown }).id) : event;
  return {
    type,
    ...(source !== undefined && { source }),
    ...(typeof named === 'string' && { event: named.slice(0, 200) }),
    ...(client !== undefined && { client: client.slice(0, 64) }),
  };
};

export function createScriptRunner(deps: {
  store: ScriptStore;
  executions: ExecutionStore;
  deployer: Deployer;
  packages: () => PackageTrees;
  code: VersionCode;
  runtime: () => ScriptRuntime;
  slots: () => RunSlots;
  limiter: RateLimiter;
  budgets: BudgetSource;
  resources: () => ResourceCaller;
  clock: Clock;
  metrics: MetricsPort;
  /** The settings of the platform the runner was composed for. */
  settings: ScriptSettings;
  durable?: DurableRunHooks;
  /** Flow control between admission and slots (flow-control.ts). */
  flowControl?: () => RunFlowControl;
  /** Debounce and batch: a trigger of a script that gathers its triggers joins a window instead of running. */
  gathering?: ScriptGathering;
}) {
  const { store, executions, clock } = deps;
  /** Versions are immutable: one read per version and process, refreshed when a test build records its artifact. */
  const versions = new Map<string, ScriptVersion>();

  async function versionOf(scriptId: string, number: number): Promise<ScriptVersion> {
    const key = `${scriptId}:${number}`;
    const cached = versions.get(key);
    if (cached) return cached;
    const found = await store.getVersion(scriptId, number);
    if (!found) throw new NotFoundError('version', String(number));
    if (versions.size >= 1000) versions.delete(versions.keys().next().value!);
    versions.set(key, found);
    return found;
  }

  async function checkManualRate(scriptId: string, now: number) {
    const perMinute = deps.settings.manualRunsPerMinute;
    const window = await deps.limiter.hit(manualRunsBucket(scriptId), perMinute, 60, now);
    if (window.allowed) return;
    const retryAfter = Math.max(1, window.resetAt - Math.floor(now / 1000));
    throw new TooManyRequestsError('RATE_LIMITED', `at most ${perMinute} manual executions per minute per script`, retryAfter, { scriptId });
  }

  /**
   * Every check before a run, in one round trip; the day's run is counted and released again on refusal. A trigger of
   * a deployed script that gathers its triggers (debounce, batch) is queued instead, unless `gather` is off (a rerun,
   * a child run) or it is the start of a closed window's run.
   */
  async function admission(request: ExecuteRequest, gather: boolean): Promise<AdmittedRun | { queued: Execution }> {
    const now = clock.now();
    const dailyCounter = dailyRunsCounter(request.scriptId, now);
    const spendCounter = monthlySpendCounter(request.userId, now);
    const [read, runsToday, budget] = await Promise.all([
      executions.readForRun(request.scriptId, request.userId, spendCounter),
      executions.countDailyRun(dailyCounter, Math.floor(nextUtcMidnight(now) / 1000) + 86_400),
      deps.budgets.monthlyBudgetUsd(request.userId),
    ]);
    const { installation, spent } = read;
    // A closed window's run was counted as a manual run (if it was) when its trigger came.
    const manual = request.gathered === undefined && (request.viaApi === true || request.trigger.type === 'manual');
    let script: Script;
    let version: ScriptVersion;
    let qualifier = liveAlias;
    try {
      script = runnableScript(request.scriptId, request.userId, read.script, installation);
      if (manual) await checkManualRate(script.scriptId, now);
      // A manual run of a never-deployed script is a test run of its latest version; everything else needs a deploy.
      if (script.activeVersion === null && !manual) throw new ConflictError(`script ${script.scriptId} is not deployed`, { scriptId: script.scriptId });
      const gathering = gather && request.gathered === undefined && script.activeVersion !== null ? gatheringOf(script.config) : undefined;
      if (gathering && deps.gathering) {
        const queued = await deps.gathering.gather(gathering, request, (executionId, queue) =>
          queuedRecord(script, request, executionId, queue, clock.nowIso()),
        );
        await executions.releaseDailyRun(dailyCounter);
        return { queued };
      }
      const { maxExecutionsPerDay } = script.config;
      if (runsToday > maxExecutionsPerDay) {
        const retryAfter = Math.ceil((nextUtcMidnight(now) - now) / 1000);
        throw new TooManyRequestsError(
          'DAILY_LIMIT_EXCEEDED',
          `script ${script.scriptId} has used its ${maxExecutionsPerDay} executions for today (UTC)`,
          retryAfter,
          { scriptId: script.scriptId, maxExecutionsPerDay },
        );
      }
      if (spent >= budget)
        throw new BudgetExceededError(`this month's script spend of ${roundUsd(spent)} USD has reached the monthly budget of ${budget} USD`, {
          monthlyBudgetUsd: budget,
          spentUsd: roundUsd(spent),
        });
      version = await versionOf(script.scriptId, script.activeVersion ?? script.latestVersion);
      if (script.activeVersion === null) {
        const artifact = await deps.deployer.testBuild(script, version);
        versions.set(`${script.scriptId}:${version.version}`, { ...version, artifact });
        qualifier = artifact.functionVersion;
      }
    } catch (error) {
      await executions.releaseDailyRun(dailyCounter);
      throw error;
    }
    const { config } = script;
    // The run may cost at most what both the script's limit and the month's remaining budget allow.
    const remaining = budget - spent;
    const limitUsd = Math.min(config.maxCostPerExecution, remaining);
    const timeoutMs = Math.min(config.timeout * 1000, msAffordable(limitUsd, config.memory));
    const waitMs = config.concurrency ? slotWaitMs.keyed : manual ? slotWaitMs.manual : slotWaitMs.triggered;
    const createdAt = clock.nowIso();
    const inputJson = JSON.stringify(request.data ?? null);
    if (config.durable && Buffer.byteLength(inputJson) > maxDurableInputBytes) {
      await executions.releaseDailyRun(dailyCounter);
      throw new ValidationError('data', `${Buffer.byteLength(inputJson)} bytes`, `a durable run's data is at most ${maxDurableInputBytes} bytes of JSON`);
    }
    const executionId = request.gathered ?? newId('exe');
    const { parentWait, depth } = request.parent ?? {};
    const parent = request.parent && {
      parentExecutionId: request.parent.parentExecutionId,
      rootExecutionId: request.parent.rootExecutionId ?? request.parent.parentExecutionId,
    };
    const running: Execution = {
      executionId,
      kind: 'script',
      ...lineageOf(executionId, parent),
      ...(request.origin && { origin: request.origin }),
      scriptId: script.scriptId,
      userId: request.userId,
      scriptUser: `${script.scriptId}#${request.userId}`,
      version: version.version,
      trigger: storedTrigger(request.trigger),
      status: 'running',
      ...notYetRun(createdAt),
      runningUntil: new Date(Date.parse(createdAt) + waitMs + timeoutMs + runGraceMs).toISOString(),
      ...(config.durable && { durable: true as const }),
      // Kept for rerun and replay while it fits the record with room to spare.
      ...(Buffer.byteLength(inputJson) <= maxStoredInputBytes && { inputJson }),
      ...(parentWait !== undefined && { parentWait, depth }),
    };
    return {
      running,
      data: request.data,
      ...(request.batch && { batch: request.batch }),
      trigger: request.trigger,
      runtime: script.runtime,
      config,
      qualifier,
      customization: installation?.customization ?? {},
      budget,
      limitUsd,
      limitedBy: config.maxCostPerExecution <= remaining ? 'cost' : 'budget',
      timeoutMs,
      dailyCounter,
      spendCounter,
      admittedAt: now,
      slotWaitMs: waitMs,
    };
  }

  /**
   * Runs an admitted run and records its end. In the foreground, runs that end within a second are recorded once,
   * finished; longer ones show up as running meanwhile, and a run the runtime refuses is not recorded. In the
   * background its running record is there already, and a refusal or failure is recorded on it: someone may have
   * been told it runs.
   */
  async function run(admitted: AdmittedRun, background: boolean): Promise<ExecutionResult> {
    const { running, config, limitUsd, limitedBy, timeoutMs } = admitted;
    const { executionId } = running;
    const { runningUntil: _until, ...ended } = running;
    let runningWritten: Promise<void> | undefined;
    const runningTimer = background ? undefined : setTimeout(() => (runningWritten = executions.putRunning(running)), showRunningAfterMs);
    const claim: SlotClaim = {
      executionId,
      scriptId: running.scriptId,
      userId: running.userId,
      ...(config.concurrency && { key: concurrencyClaim(config.concurrency, running.userId, admitted.data) }),
      holdMs: timeoutMs + runGraceMs,
    };
    let slotTaken = false;
    const grant: RunGrant = {
      executionId,
      userId: running.userId,
      scriptId: running.scriptId,
      allowedResources: config.allowedResources,
      limitUsd,
      limitedBy,
      memoryMb: config.memory,
      startedAt: clock.now(),
    };
    const tally = memoryTally();
    let started = performance.now();
    const caller: ResourceCaller = { call: (call) => deps.resources().call(call) };
    const callResource = resourceGate({ grant, tally, caller, elapsedMs: () => performance.now() - started });
    const durable = config.durable ? deps.durable : undefined;
    const invocation = durable && (await durable.start(admitted));
    const invocationNumber = invocation ? invocation.invocation : 1;
    const liveLog = createLiveLog(invocationNumber, (lines) => executions.appendLogs(executionId, lines, runExpiry(running.createdAt).logsExpireAt));

    let outcome;
    try {
      await deps.slots().take(claim, admitted.slotWaitMs);
      slotTaken = true;
      // The run's time (and what it may cost) counts from here, not from its wait for a slot.
      grant.startedAt = clock.now();
      started = performance.now();
      const version = await versionOf(running.scriptId, running.version);
      outcome = await deps.runtime().invoke({
        scriptId: running.scriptId,
        version: version.version,
        runtime: admitted.runtime,
        codeHash: version.codeHash,
        qualifier: admitted.qualifier,
        // Called only where no staged or deployed copy exists (a cold local worker): warm runs read no blob.
        code: async () => prepareCode(admitted.runtime, await deps.code.read(version), deps.settings.python),
        dependencies: deps.packages().treeOf(version),
        memoryMb: config.memory,
        timeoutMs,
        event: {
          data: admitted.data,
          ...(admitted.batch && { batch: admitted.batch }),
          trigger: { type: admitted.trigger.type, source: admitted.trigger.source ?? null, event: admitted.trigger.event ?? null },
        },
        context: {
          scriptId: running.scriptId,
          executionId,
          userId: running.userId,
          customization: admitted.customization,
          ...(invocation && { durable: { journal: invocation.journal } }),
        },
        callResource: durable
          ? (name, method, params) => (name === durableChannel ? durable.checkpoint(admitted, method, params) : callResource(name, method, params))
          : callResource,
        onLog: liveLog.push,
        grant,
      });
    } catch (error) {
      clearTimeout(runningTimer);
      if (slotTaken) await deps.slots().release(claim);
      await liveLog.close();
      await runningWritten;
      // A durable run's later invocation refused a slot waits for one (durable/script-runs.ts): nothing to record.
      if (admitted.resumed && error instanceof AppError && error.code === 'CONCURRENCY_LIMIT') throw error;
      await Promise.all([
        background
          ? executions.putFinished({ ...ended, status: 'error', error: failureOf(error), finishedAt: clock.nowIso() })
          : runningWritten && executions.remove(executionId),
        // A later invocation's run was counted for the day by its first.
        !admitted.resumed && executions.releaseDailyRun(admitted.dailyCounter),
        durable && invocation && durable.finished(admitted, invocation.invocation),
      ]);
      if (background && ((durable && admitted.resumed) || running.parentExecutionId))
        await deps.durable?.ended({ ...ended, status: 'error', error: failureOf(error), finishedAt: clock.nowIso() });
      await deps.flowControl?.().left(admitted);
      throw error;
    }
    clearTimeout(runningTimer);
    await Promise.all([deps.slots().release(claim), liveLog.close()]);

    const usage = outcome.resourceUsage ?? tally.usage();
    const prior = admitted.resumed;
    const invocationCost = roundUsd(computeCostUsd(outcome.duration, config.memory) + usage.cost);
    const cost = roundUsd(invocationCost + (prior?.cost ?? 0));
    const cutByCost = usage.stoppedForCost || cost > limitUsd || (outcome.status === 'timeout' && timeoutMs < config.timeout * 1000);
    const pastBound = durable && invocation ? await durable.boundExceeded(admitted) : undefined;
    const error: ExecutionError | null = cutByCost
      ? limitedBy === 'cost'
        ? { code: 'COST_LIMIT_EXCEEDED', message: `the run cost more than maxCostPerExecution (${config.maxCostPerExecution} USD)` }
        : { code: 'BUDGET_EXCEEDED', message: `the run would pass the monthly budget of ${admitted.budget} USD` }
      : (pastBound ?? outcome.error);
    const failed = cutByCost || pastBound !== undefined;
    const parsed = JSON.parse(outcome.outputJson) as unknown;
    const finishedAt = clock.nowIso();
    const stored = storedLogs(outcome.logs, invocationNumber, prior?.logBytes);
    const finished: Execution = {
      ...ended,
      status: failed ? 'error' : outcome.status === 'suspended' ? 'waiting' : outcome.status,
      ...(outcome.noOp && !failed && { noOp: true }),
      ...storedOutput(parsed, outcome.outputJson),
      error,
      duration: Math.round((outcome.duration + (prior?.duration ?? 0)) * 100) / 100,
      memoryUsed: Math.max(outcome.memoryUsed, prior?.memoryUsed ?? 0),
      cost,
      resourceCalls: usage.calls + (prior?.resourceCalls ?? 0),
      logBytes: (prior?.logBytes ?? 0) + stored.bytes,
      finishedAt,
    };
    await runningWritten;
    const spend = { counter: admitted.spendCounter, amountUsd: invocationCost, expiresAt: Math.floor(admitted.admittedAt / 1000) + 400 * 86_400 };
    if (durable && invocation && outcome.status === 'suspended' && !failed) {
      const waiting: Execution = { ...finished, status: 'waiting', output: null, error: null, finishedAt: null };
      await executions.putFinished(waiting, stored.lines, { spend });
      await durable.suspended(admitted, invocation.invocation);
      return { execution: waiting, ...printedBy(outcome.logs, invocationNumber), output: null };
    }
    if (durable && invocation && !(await durable.finished(admitted, invocation.invocation))) {
      await executions.addSpend(spend);
      return { execution: (await executions.get(executionId, true)) ?? finished, ...printedBy(outcome.logs, invocationNumber), output: null };
    }
    await executions.putFinished(finished, stored.lines, {
      spend,
      totals: {
        scriptId: running.scriptId,
        succeeded: finished.status === 'success',
        duration: finished.duration,
        cost,
        at: finishedAt,
        version: running.version,
      },
    });
    await deps.flowControl?.().left(admitted);
    if (finished.status !== 'success') await deps.durable?.failed(finished);
    if ((durable && admitted.resumed) || running.parentExecutionId) await deps.durable?.ended(finished, parsed);
    deps.metrics.record('ScriptRuns', 'Count', 1, { status: finished.status });
    deps.metrics.record('ScriptRunCost', 'NoUnit', cost);
    return { execution: finished, ...printedBy(outcome.logs, invocationNumber), output: answeredOutput(parsed, outcome.outputJson) };
  }

  /**
   * A run's flow control (unless `flowControl` is false: a rerun of a run that passed it): a run its throttle holds
   * comes back with its `queued` record written, to be started by its queue.
   */
  async function controlled(admitted: AdmittedRun, options: { flowControl?: boolean }): Promise<AdmittedRun> {
    if (options.flowControl === false || !deps.flowControl) return admitted;
    const entry = await deps.flowControl().enter(admitted);
    return 'go' in entry ? entry.go : { ...admitted, running: entry.queued };
  }

  /** Admission where a gathering script's trigger would be refused: every caller but those of gathered triggers. */
  async function admit(request: ExecuteRequest, options: { flowControl?: boolean } = {}): Promise<AdmittedRun> {
    const admitted = await admission(request, false);
    if ('queued' in admitted) throw new ConflictError('a gathered trigger was admitted as a run');
    return controlled(admitted, options);
  }

  /** Admission of a trigger: its run (queued by its flow control, or not), or the queued run of the window it joined. */
  async function admitOrQueue(request: ExecuteRequest): Promise<AdmittedRun | { queued: Execution }> {
    const admitted = await admission(request, true);
    return 'queued' in admitted ? admitted : controlled(admitted, {});
  }

  return {
    admit,
    admitOrQueue,
    /** An admitted run in the background (long-runs.ts): its record is written, and a failure is recorded on it. */
    runAdmitted: (admitted: AdmittedRun) => run(admitted, true),
    /** The run of every trigger that waits for its end (events, schedules, webhooks, flows). */
    async execute(request: ExecuteRequest): Promise<ExecutionResult> {
      const admitted = await admitOrQueue(request);
      if ('queued' in admitted) return { execution: admitted.queued, logs: [], logLines: [], output: null };
      if (admitted.running.status === 'queued') return { execution: admitted.running, logs: [], logLines: [], output: null };
      return run(admitted, false);
    },
  };
}

export type ScriptRunner = ReturnType<typeof createScriptRunner>;
