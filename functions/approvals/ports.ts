import type { ApprovalOutcome } from './schemas.js';

/** Users named by username or userId (the accounts area). */
export interface UserDirectory {
  findUsers(names: string[]): Promise<{ found: Array<{ userId: string; username: string }>; missing: string[] }>;
}

/**
 * The durable-run engine: completes the run's approval wait and resumes the run. False when the wait is not waiting
 * (decided a moment ago, timed out, or the run was cancelled): the engine's conditional write is the one arbiter.
 */
export interface ApprovalWaits {
  resolve(executionId: string, name: string, outcome: { result: ApprovalOutcome }): Promise<boolean>;
}

/** The run whose code asks for an approval. */
export interface ApprovalRun {
  executionId: string;
  scriptId: string;
  flowId?: string;
  /** Whose run it is: the event goes to this user, who may not approve their own run (unless as sole approver and owner). */
  userId: string;
  /** The script's owner: the approver when none is named. */
  ownerId: string;
}
