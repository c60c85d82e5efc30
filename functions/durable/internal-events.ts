// What the durable engine puts on the platform bus for itself (the `platform.` namespace, refused for events users
// publish): a run to continue, because a wait ended, a timer or timeout came, or an invocation's lease lapsed.

/** Detail `{executionId}` plus `wait` (a wait's timer or timeout) or `watch` (the invocation whose lease to check). */
export const durableWakeType = 'platform.durable_wake';

/** One-shot names (EventBridge Scheduler: 1-64 of `0-9 a-z A-Z - _ .`): the wait's name goes in hashed. */
export const waitTimerName = (executionId: string, waitHash: string) => `dw-${executionId}-${waitHash}`.slice(0, 64);
export const watchdogName = (executionId: string) => `dw-${executionId}-watch`.slice(0, 64);
export const retryName = (executionId: string) => `dw-${executionId}-retry`.slice(0, 64);
