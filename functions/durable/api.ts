// The durable engine's facade: what scripts, flows and the composition use of it (the values settings and inputs speak are in schemas.ts).
export { callbackWaitKind, createCallbacks, type DurableCallbacks } from './callbacks.js';
export { DurableError } from './errors.js';
export { createDurableEngine, type DurableEngine, type Resumer, timerWaitKind } from './engine.js';
export { type DurableContext, runDurably } from './in-process.js';
export { durableWakeType } from './internal-events.js';
export { createJournal, stepViews, type Journal, type JournalEntry, type RunItem } from './journal.js';
export type { ExecutionError, StepView } from './model.js';
export type { WaitKind, WaitOutcome } from './wait-kinds.js';
