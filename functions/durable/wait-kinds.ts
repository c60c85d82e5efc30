// The extension point for what a durable run can wait on. The engine has `wait` (a timer) and `callback`; other
// areas declare theirs (an approval, an event); the composition hands them all to the engine in one registry.
import type { ExecutionError } from './model.js';
import type { JournalEntry, StepType } from './journal.js';

/** The run a wait is opened for. */
export interface WaitOwner {
  executionId: string;
  userId: string;
  scriptId: string;
  flowId?: string;
}

export interface OpenedWait {
  /** Seconds until the wait ends by itself (a timer's end, or a timeout); at most a year. */
  timeoutSeconds: number;
  /** Stored with the wait (an id to find it by, a token's hash). */
  fields?: Record<string, unknown>;
  /** Handed back to the code at once (a callback's id and URL). */
  reply?: Record<string, unknown>;
  /** Called once the wait's entry is written (a child run starts then, so its end finds the wait). */
  begin?(): Promise<void>;
  /** Called when the wait's entry could not be written: undoes what `open` prepared. */
  abandon?(): Promise<void>;
}

export interface WaitKind {
  /** What `steps[]` calls waits of this kind. */
  type: Exclude<StepType, 'step'>;
  /**
   * Checks the code's arguments (throws ValidationError, which reaches the code as DURABLE_INVALID_ARGUMENT) and
   * stores what the wait needs elsewhere; `resolveWait(executionId, name, ...)` ends it later.
   */
  open(owner: WaitOwner, name: string, args: unknown): Promise<OpenedWait>;
  /** What the code gets when the time runs out: a timer resolves, everything else throws TIMEOUT. */
  onTimeout: 'resolve' | 'timeout';
  /** Whether a re-run from a later step may reuse this ended wait's outcome (default yes): an approval only if allowed. */
  reusable?(entry: JournalEntry): boolean;
  /** The run ended with this wait open (now `cancelled` in the journal): removes what `open` stored elsewhere, saying why. */
  close?(wait: Pick<JournalEntry, 'executionId' | 'name' | 'type' | 'fields' | 'userId'>, reason: string): Promise<void>;
}

/** How a wait ends: a result for the code, or an error it throws (`error.code`). */
export type WaitOutcome = { result: unknown } | { error: ExecutionError };
