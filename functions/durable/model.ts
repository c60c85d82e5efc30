// What a durable run shows of itself: its journal entries as the interface lists them, and the error a run or a step ends with.

/** Why a run or a step failed: a stable code, a message, and the script's line where known. */
export interface ExecutionError {
  code: string;
  message: string;
  line?: number;
}

/** One entry of a durable run's journal as the interface shows it. */
export interface StepView {
  name: string;
  type: 'step' | 'wait' | 'callback' | 'event' | 'approval' | 'invoke' | 'map' | 'parallel';
  status: 'succeeded' | 'failed' | 'waiting' | 'cancelled';
  startedAt: string;
  endedAt: string | null;
  result?: unknown;
  error?: ExecutionError;
  /** Waits: when the wait ends (its timer or its timeout). */
  wakeAt?: string;
  /** Reused by a re-run from an earlier run: its times are that run's. */
  kept?: true;
  /** `invoke` entries: the child run. */
  childExecutionId?: string;
  /** What continues a wait: the callback to complete, the approval to decide, the event type to publish. */
  callbackId?: string;
  approvalId?: string;
  eventType?: string;
}
