// Local stand-in for EventBridge Scheduler: recurring definitions kept in `<dataDir>/schedules.json` and pending
// one-time firings in `<dataDir>/one-shots.json` (JSON lines, one-shot-store.ts: they outlive a restart, as AWS schedules do), a croner heartbeat at
// every UTC minute and one timer armed for the earliest one-time firing, firings published on the in-process bus
// exactly as the AWS schedules put them on the platform bus. Tests turn the clocks off and call `tick()` and
// `fireOneShots()` with their own clock.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cron } from 'croner';
import { type Clock, systemClock } from '#platform/clock.js';
import { settings } from '#platform/settings.js';
import { type CronSchedule, cronMatches, parseCron } from '#platform/cron.js';
import { logger } from '#platform/logger.js';
import type { OneShotDefinition, PlatformEventInput, ScheduleDefinition, SchedulerPort } from '#platform/ports.js';
import { inProcessBus } from './event-bus.js';
import { createOneShotStore } from './one-shot-store.js';
import { startedOnFirstUse } from './lifecycle.js';

const minuteMs = 60_000;
/** After a stall (a laptop asleep), minutes missed within this window still fire once each; older ones are skipped. */
const catchUpMs = 5 * minuteMs;
/** setTimeout's longest delay; a later one-time firing re-arms when this one wakes. */
const maxDelayMs = 2 ** 31 - 1;

export interface LocalSchedulerOptions {
  clock: Clock;
  /** Resolves once the event was handled: a one-time firing leaves the store only then (it fires again after a crash). */
  publish(event: PlatformEventInput): Promise<unknown>;
  /** Where recurring definitions persist; none keeps them in memory. */
  file?: string;
  /** Where pending one-time firings persist; none keeps them in memory. */
  oneShotFile?: string;
  /** Fire on the wall clock (every minute, and at the earliest one-time firing); tests leave it off and call `tick()` and `fireOneShots()`. */
  heartbeat: boolean;
}

export interface LocalScheduler extends SchedulerPort {
  /** Fires every enabled schedule due in the minutes since the last tick, up to the clock's current minute; returns how many fired. */
  tick(): Promise<number>;
  /** Fires every one-time firing due by the clock's now; returns how many fired. */
  fireOneShots(): Promise<number>;
  pendingOneShots(): OneShotDefinition[];
  stop(): void;
}

const readJson = <T>(file: string | undefined): T[] => (file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T[]) : []);

function writeJson(file: string | undefined, items: unknown[]) {
  if (!file) return;
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, JSON.stringify(items));
  renameSync(temporary, file);
}

export function createLocalScheduler(options: LocalSchedulerOptions): LocalScheduler {
  const schedules = new Map<string, { definition: ScheduleDefinition; cron: CronSchedule }>();
  const oneShots = createOneShotStore(options.oneShotFile);
  let lastMinute: number | undefined;
  let heartbeat: Cron | undefined;
  let oneShotTimer: NodeJS.Timeout | undefined;
  let stopped = false;

  const remember = (definition: ScheduleDefinition) => schedules.set(definition.name, { definition, cron: parseCron(definition.cronExpression) });
  for (const definition of readJson<ScheduleDefinition>(options.file)) remember(definition);

  const persist = () =>
    writeJson(
      options.file,
      [...schedules.values()].map(({ definition }) => definition),
    );

  function armOneShots() {
    if (!options.heartbeat || stopped) return;
    clearTimeout(oneShotTimer);
    oneShotTimer = undefined;
    const earliest = oneShots.earliest();
    if (earliest === undefined) return;
    oneShotTimer = setTimeout(
      () => {
        scheduler.fireOneShots().catch((error: unknown) => logger.error('local one-shot firing failed', { error: String(error) }));
      },
      Math.min(maxDelayMs, Math.max(0, earliest - options.clock.now())),
    );
    oneShotTimer.unref();
  }

  function startHeartbeat() {
    if (!options.heartbeat || heartbeat) return;
    lastMinute = Math.floor(options.clock.now() / minuteMs) * minuteMs;
    heartbeat = new Cron('* * * * *', { timezone: 'UTC', unref: true }, () => {
      scheduler.tick().catch((error: unknown) => logger.error('local scheduler tick failed', { error: String(error) }));
    });
  }

  const scheduler: LocalScheduler = {
    async put(definition) {
      remember(definition);
      persist();
      startHeartbeat();
    },
    async putOnce(once) {
      oneShots.put(once);
      armOneShots();
    },
    async remove(name) {
      if (schedules.delete(name)) persist();
      if (oneShots.remove(name)) armOneShots();
    },
    async tick() {
      const minute = Math.floor(options.clock.now() / minuteMs) * minuteMs;
      const from = lastMinute === undefined ? minute : Math.max(lastMinute + minuteMs, minute - catchUpMs);
      lastMinute = Math.max(lastMinute ?? minute, minute);
      const firings: Promise<unknown>[] = [];
      for (let at = from; at <= minute; at += minuteMs) {
        const date = new Date(at);
        for (const { definition, cron } of schedules.values()) {
          if (!definition.enabled || !cronMatches(cron, date)) continue;
          const { type, userId, detail } = definition.event;
          // Not one after the other: a delivery lasts as long as what it starts.
          firings.push(options.publish({ ...detail, type, userId, source: 'scheduler', scheduledTime: date.toISOString() }));
        }
      }
      await Promise.all(firings);
      return firings.length;
    },
    async fireOneShots() {
      const due = oneShots.takeDue(options.clock.now());
      // Re-armed before the deliveries end: a delivery may last as long as the run it continues.
      armOneShots();
      await Promise.all(
        due.map(async (once) => {
          const { type, userId, detail } = once.event;
          await options.publish({ ...detail, type, userId, source: 'scheduler', scheduledTime: once.at });
          oneShots.done(once);
        }),
      );
      return due.length;
    },
    pendingOneShots: () => oneShots.all(),
    stop() {
      stopped = true;
      heartbeat?.stop();
      heartbeat = undefined;
      clearTimeout(oneShotTimer);
    },
  };
  if (schedules.size) startHeartbeat();
  armOneShots();
  return scheduler;
}

/** The platform's local scheduler, started on first use with the definitions and pending firings of the last run. */
export const localScheduler: () => LocalScheduler = startedOnFirstUse(
  () =>
    createLocalScheduler({
      clock: systemClock,
      publish: (event) => inProcessBus.deliver(event),
      file: join(settings.dataDir, 'schedules.json'),
      oneShotFile: join(settings.dataDir, 'one-shots.json'),
      heartbeat: true,
    }),
  (scheduler) => scheduler.stop(),
);
