// Local stand-in for one-time EventBridge Scheduler schedules: pending firings kept in `<dataDir>/one-shots.json`
// (they outlive a restart, as AWS schedules do), one timer armed for the earliest, firings published on the
// in-process bus. Tests turn the timer off and call `tick()` with their own clock.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock } from '#platform/clock.js';
import { settings } from '#platform/settings.js';
import { logger } from '#platform/logger.js';
import type { OneShotDefinition, OneShotSchedulerPort, PlatformEventInput } from '#platform/ports.js';
import { inProcessBus } from './event-bus.js';
import { startedOnFirstUse } from './lifecycle.js';

/** setTimeout's longest delay; a later firing re-arms when this one wakes. */
const maxDelayMs = 2 ** 31 - 1;

export interface LocalOneShotOptions {
  clock: Clock;
  publish(event: PlatformEventInput): Promise<unknown>;
  file?: string;
  /** Arm a wall-clock timer for the earliest firing; off in tests, which call `tick()`. */
  timers: boolean;
}

export interface LocalOneShots extends OneShotSchedulerPort {
  /** Fires every one-shot due by the clock's now; returns how many fired. */
  tick(): Promise<number>;
  pending(): OneShotDefinition[];
  stop(): void;
}

export function createLocalOneShots(options: LocalOneShotOptions): LocalOneShots {
  const pending = new Map<string, OneShotDefinition>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  if (options.file && existsSync(options.file)) {
    for (const once of JSON.parse(readFileSync(options.file, 'utf8')) as OneShotDefinition[]) pending.set(once.name, once);
  }

  function persist() {
    if (!options.file) return;
    const temporary = `${options.file}.tmp`;
    writeFileSync(temporary, JSON.stringify([...pending.values()]));
    renameSync(temporary, options.file);
  }

  function arm() {
    if (!options.timers || stopped) return;
    clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const earliest = Math.min(...[...pending.values()].map((once) => Date.parse(once.at)));
    timer = setTimeout(
      () => {
        oneShots.tick().catch((error: unknown) => logger.error('local one-shot tick failed', { error: String(error) }));
      },
      Math.min(maxDelayMs, Math.max(0, earliest - options.clock.now())),
    );
    timer.unref();
  }

  const oneShots: LocalOneShots = {
    async putOnce(once) {
      pending.set(once.name, once);
      persist();
      arm();
    },
    async cancel(name) {
      if (!pending.delete(name)) return;
      persist();
      arm();
    },
    async tick() {
      const now = options.clock.now();
      const due = [...pending.values()].filter((once) => Date.parse(once.at) <= now).sort((a, b) => a.at.localeCompare(b.at));
      for (const once of due) pending.delete(once.name);
      if (due.length) persist();
      for (const once of due) {
        const { type, userId, detail } = once.event;
        await options.publish({ ...detail, type, userId, source: 'scheduler', scheduledTime: once.at });
      }
      arm();
      return due.length;
    },
    pending: () => [...pending.values()],
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
  arm();
  return oneShots;
}

/** The platform's local one-shots, started on first use with those still pending from the last run. */
export const localOneShots: () => LocalOneShots = startedOnFirstUse(
  () =>
    createLocalOneShots({ clock: systemClock, publish: (event) => inProcessBus.publish(event), file: join(settings.dataDir, 'one-shots.json'), timers: true }),
  (oneShots) => oneShots.stop(),
);
