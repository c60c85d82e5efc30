// One long-run mechanism for work an API call starts that may outlast API Gateway's 30 s (a script's execute, a
// flow's runFlow): the admitted job starts in the background (the API function invoking itself on AWS, this process
// locally), and the call answers with its end when it ends within the bound, otherwise as running: the job goes on
// and records its end, which the area's reads report.
import { type BoundedWaitOptions, waitBounded } from './bounded-wait.js';
import type { Clock } from './clock.js';
import type { BackgroundRuns } from './ports.js';

export interface LongRunDeps<J, R> {
  background: (run: (job: J) => Promise<R | undefined>) => BackgroundRuns<J, R | undefined>;
  /** Runs the job; in this process it runs exactly once. */
  run(job: J): Promise<R>;
  /**
   * Takes a job delivered to the function invoked for it, since Lambda may deliver an asynchronous invocation more
   * than once: what to do once it has run, or undefined for a repeated delivery (which runs nothing).
   */
  claim(job: J): Promise<((result: R) => Promise<void>) | undefined>;
  /** The job's end as recorded; undefined while it runs. */
  recordedEnd(job: J): Promise<R | undefined>;
  boundMs: number;
  clock: Clock;
  pause?: BoundedWaitOptions<unknown>['pause'];
}

/** What admitting the job left behind, undone when the job does not go on. */
export interface LongRunUndo {
  /** The job could not start: nothing ran. */
  notStarted(): Promise<void>;
  /** The job failed within the bound (a refusal of the runtime): the error is the answer. */
  failed?(): Promise<void>;
}

export function createLongRun<J, R>(deps: LongRunDeps<J, R>) {
  const jobs = deps.background((job) => deps.run(job));
  return {
    /** The job as the function invoked for it on AWS runs it. */
    async runJob(job: J): Promise<R | undefined> {
      const ran = await deps.claim(job);
      if (!ran) return undefined;
      const result = await deps.run(job);
      await ran(result);
      return result;
    },

    /** Starts an admitted job and answers at once: whoever needs its end hears of it otherwise. */
    async detach(job: J): Promise<void> {
      await jobs.start(job);
    },

    /** Starts an admitted job: its end within the bound, or `running` while it goes on. */
    async start(job: J, undo: LongRunUndo): Promise<{ ended: R } | { running: true }> {
      let started;
      try {
        started = await jobs.start(job);
      } catch (error) {
        await undo.notStarted();
        throw error;
      }
      let waited;
      try {
        waited = await waitBounded({ started, read: () => deps.recordedEnd(job), boundMs: deps.boundMs, pause: deps.pause, now: deps.clock.now });
      } catch (error) {
        await undo.failed?.();
        throw error;
      }
      return waited.ended && waited.value ? { ended: waited.value } : { running: true };
    },
  };
}
