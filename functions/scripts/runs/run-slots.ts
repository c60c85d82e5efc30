// Admission of a run to its script: the interface's 10 concurrent executions per script, a tenant's share of the
// platform (runs of one user across all scripts), and the script's own `config.concurrency` per key value (each run
// user's own, unless the owner made the key global). The runner takes a run's slots right before each invocation and
// releases them right after; a durable run releases them when it suspends and takes them again when it resumes, so a
// waiting run holds none. Adapters only execute.
// Implementations: memory for one process (below, local mode) and DynamoDB leases on AWS (run-leases.ts).
import { TooManyRequestsError } from '#platform/errors.js';
import { limits } from '../model.js';

/** Runs one user may hold at once across all scripts: a tenth of Lambda's default account concurrency (1,000). */
export const perUserConcurrentRuns = 100;

/** The value runs share when their data lacks the script's concurrency key (or holds no scalar there). */
export const noKeyValue = '';

/** One run's claim on its slots. */
export interface SlotClaim {
  executionId: string;
  scriptId: string;
  userId: string;
  /**
   * Set when the script has `config.concurrency`: the value of its key in this run's data, its limit, and the group
   * the limit counts in (the value of this run's user, or of every user when the key is global).
   */
  key?: { value: string; limit: number; group: string };
  /** How long the slots may be held: slots of a run whose process died lapse by themselves (DynamoDB). */
  holdMs: number;
}

export interface RunSlots {
  /**
   * Resolves once the run holds a slot of its script, of its user and of its key value (if any). Runs waiting for a
   * script's slots are served first in, first out per key group, round-robin between key groups. Past `waitMs`
   * (0: at once) it refuses with CONCURRENCY_LIMIT, holding nothing.
   */
  take(claim: SlotClaim, waitMs: number): Promise<void>;
  /** Gives the run's slots back; releasing slots not held does nothing. */
  release(claim: SlotClaim): Promise<void>;
}

export const scriptBusy = (scriptId: string, limit: number) =>
  new TooManyRequestsError('CONCURRENCY_LIMIT', `script ${scriptId} already runs ${limit} executions; the limit is ${limit}`, 1, { scriptId });
export const userBusy = (userId: string, limit: number) =>
  new TooManyRequestsError('CONCURRENCY_LIMIT', `user ${userId} already runs ${limit} executions; the limit is ${limit}`, 1, { userId });
export const keyBusy = (scriptId: string, key: string, limit: number) =>
  new TooManyRequestsError('CONCURRENCY_LIMIT', `script ${scriptId} already runs ${limit} executions of its concurrency key value`, 1, {
    scriptId,
    concurrencyKey: key,
  });

interface Waiter {
  claim: SlotClaim;
  grant(): void;
}

/** Waiting runs of one script: a queue per key group, and the key groups in round-robin order. */
interface Lane {
  queues: Map<string, Waiter[]>;
  order: string[];
}

const keyOf = (claim: SlotClaim) => claim.key?.group ?? noKeyValue;

/** Slots of one process: every run of the platform goes through it locally. */
export function createMemoryRunSlots(options: { perScript?: number; perUser?: number } = {}): RunSlots {
  const perScript = options.perScript ?? limits.concurrentExecutionsPerScript;
  const perUser = options.perUser ?? perUserConcurrentRuns;
  const held = new Map<string, SlotClaim>();
  const counts = new Map<string, number>();
  const lanes = new Map<string, Lane>();
  const count = (name: string) => counts.get(name) ?? 0;
  const add = (name: string, delta: number) => {
    const next = count(name) + delta;
    if (next === 0) counts.delete(name);
    else counts.set(name, next);
  };
  const names = (claim: SlotClaim) => [`script#${claim.scriptId}`, `user#${claim.userId}`, `key#${claim.scriptId}#${keyOf(claim)}`];

  function refusalFor(claim: SlotClaim): TooManyRequestsError | undefined {
    const [script, user, key] = names(claim);
    if (count(script!) >= perScript) return scriptBusy(claim.scriptId, perScript);
    if (count(user!) >= perUser) return userBusy(claim.userId, perUser);
    if (claim.key && count(key!) >= claim.key.limit) return keyBusy(claim.scriptId, claim.key.value, claim.key.limit);
    return undefined;
  }

  function hold(claim: SlotClaim) {
    held.set(claim.executionId, claim);
    for (const name of names(claim)) add(name, 1);
  }

  function forget(lane: Lane, scriptId: string, key: string, waiter: Waiter) {
    const queue = lane.queues.get(key)!;
    queue.splice(queue.indexOf(waiter), 1);
    if (queue.length) return;
    lane.queues.delete(key);
    lane.order.splice(lane.order.indexOf(key), 1);
    if (!lane.order.length) lanes.delete(scriptId);
  }

  /** Grants the heads of the script's queues that fit, the key group served last going to the back of the order. */
  function serve(scriptId: string) {
    const lane = lanes.get(scriptId);
    while (lane?.order.length) {
      const key = lane.order.find((value) => !refusalFor(lane.queues.get(value)![0]!.claim));
      if (key === undefined) return;
      const head = lane.queues.get(key)![0]!;
      forget(lane, scriptId, key, head);
      if (lane.queues.has(key)) lane.order.push(lane.order.splice(lane.order.indexOf(key), 1)[0]!);
      hold(head.claim);
      head.grant();
    }
  }

  return {
    async take(claim, waitMs) {
      if (held.has(claim.executionId)) return;
      const refusal = refusalFor(claim);
      // Runs of other key groups still waiting wait for their own limits (each release serves every head that fits).
      if (!refusal && !lanes.get(claim.scriptId)?.queues.has(keyOf(claim))) return hold(claim);
      if (waitMs <= 0) throw refusal ?? keyBusy(claim.scriptId, claim.key?.value ?? noKeyValue, claim.key?.limit ?? perScript);
      await new Promise<void>((resolve, reject) => {
        const key = keyOf(claim);
        let timer: NodeJS.Timeout | undefined;
        const waiter: Waiter = {
          claim,
          grant: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const current: Lane = lanes.get(claim.scriptId) ?? { queues: new Map(), order: [] };
        lanes.set(claim.scriptId, current);
        if (!current.queues.has(key)) {
          current.queues.set(key, []);
          current.order.push(key);
        }
        current.queues.get(key)!.push(waiter);
        if (Number.isFinite(waitMs))
          timer = setTimeout(() => {
            forget(current, claim.scriptId, key, waiter);
            reject(refusalFor(claim) ?? scriptBusy(claim.scriptId, perScript));
          }, waitMs);
        serve(claim.scriptId);
      });
    },

    async release(claim) {
      const holding = held.get(claim.executionId);
      if (!holding) return;
      held.delete(claim.executionId);
      for (const name of names(holding)) add(name, -1);
      // A user's slot frees runs of any script; the script's own waiters first.
      serve(holding.scriptId);
      for (const scriptId of [...lanes.keys()]) if (scriptId !== holding.scriptId) serve(scriptId);
    },
  };
}
