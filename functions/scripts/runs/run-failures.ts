// How a finished run that failed reaches an HTTP caller. Cost and budget stops are errors in both shapes (the interface:
// "fails with a cost limit error"); the SDK otherwise returns the failed record, REST (whose answer has no status
// field) answers a timeout with TIMEOUT and a run that produced no result with EXECUTION_FAILED.
import { AppError, BudgetExceededError, CostLimitExceededError, TimeoutError } from '#platform/errors.js';
import type { Execution } from '../model.js';

const detailsOf = (execution: Execution) => ({
  executionId: execution.executionId,
  scriptId: execution.scriptId,
  cost: execution.cost,
  error: execution.error,
});

export function throwIfStoppedByLimit(execution: Execution): void {
  if (execution.error?.code === 'COST_LIMIT_EXCEEDED') throw new CostLimitExceededError(execution.error.message, detailsOf(execution));
  if (execution.error?.code === 'BUDGET_EXCEEDED') throw new BudgetExceededError(execution.error.message, detailsOf(execution));
}

export function throwIfRestFailure(execution: Execution, output: unknown): void {
  throwIfStoppedByLimit(execution);
  if (execution.status === 'timeout') throw new TimeoutError(execution.error?.message ?? 'the script timed out', detailsOf(execution));
  if (execution.status === 'error' && output === null) {
    throw new AppError('EXECUTION_FAILED', 422, execution.error?.message ?? 'the script failed', detailsOf(execution));
  }
}
