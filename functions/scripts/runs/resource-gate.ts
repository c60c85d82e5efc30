// The rules of `resources[name][method](params)` inside a run, written once: the runner applies them in process
// (local workers), the resource-call function applies them for scripts deployed as Lambda functions.
import { AppError } from '#platform/errors.js';
import type { ResourceCaller } from '#platform/ports.js';
import { computeCostUsd } from './cost.js';
import type { RunGrant } from './run-grant.js';
import type { ResourceCallHandler, RunUsage } from './runtime-port.js';

/** Where a run's calls are counted: memory for a run in this process, DynamoDB across processes. */
export interface RunTally {
  /** USD of the calls so far. */
  spent(): Promise<number>;
  /** Counts a call about to go out; may refuse one that arrives after the run ended. */
  countCall(): Promise<void>;
  addCost(usd: number): Promise<void>;
  stopForCost(): Promise<void>;
}

/** What a script catches: `error.code` and `error.message`, the shape both runtime wrappers rebuild. */
export class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function memoryTally(): RunTally & { usage(): RunUsage } {
  const usage: RunUsage = { calls: 0, cost: 0, stoppedForCost: false };
  return {
    spent: async () => usage.cost,
    async countCall() {
      usage.calls += 1;
    },
    async addCost(usd) {
      usage.cost += usd;
    },
    async stopForCost() {
      usage.stoppedForCost = true;
    },
    usage: () => ({ ...usage }),
  };
}

/**
 * `allowedResources` first, then the cost allowance (compute so far plus the calls' cost against `limitUsd`), then
 * the call as the run's user. Refusals and failures are coded errors; `elapsedMs` is how long the run has lasted.
 */
export function resourceGate(deps: { grant: RunGrant; tally: RunTally; caller: ResourceCaller; elapsedMs: () => number }): ResourceCallHandler {
  const { grant, tally } = deps;
  return async (name, method, params) => {
    if (!grant.allowedResources.includes(name))
      throw new CodedError('RESOURCE_NOT_ALLOWED', `resource ${name} is not in this script's config.allowedResources`);
    const computeUsd = computeCostUsd(deps.elapsedMs(), grant.memoryMb);
    if (computeUsd + (await tally.spent()) >= grant.limitUsd) {
      await tally.stopForCost();
      throw new CodedError(grant.limitedBy === 'cost' ? 'COST_LIMIT_EXCEEDED' : 'BUDGET_EXCEEDED', 'this run has no cost allowance left for resource calls');
    }
    try {
      await tally.countCall();
      const result = await deps.caller.call({ userId: grant.userId, resource: name, method, params, source: 'script' });
      await tally.addCost(result.cost);
      if (!result.success) throw new CodedError('RESOURCE_CALL_FAILED', `resources.${name}.${method} answered HTTP ${result.status}`);
      return result.data;
    } catch (error) {
      if (error instanceof AppError) throw new CodedError(error.code, error.message);
      throw error;
    }
  };
}
