// Local stand-in for EventBridge Scheduler: definitions kept in `<dataDir>/schedules.json` (they outlive a
// restart, as AWS schedules do), a croner heartbeat at every UTC minute, firings published on the
// in-process bus exactly as the AWS schedules put them on the platform bus.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cron } from 'croner';
import { type Clock, systemClock } from '#platform/clock.js';
import { settings } from '#platform/settings.js';
import { type CronSchedule, cronMatches, parseCron } from '#platform/cron.js';
import { logger } from '#platform/logger.js';
import type { PlatformEventInput, ScheduleDefinition, SchedulerPort } from '#platform/ports.js';
import { inProcessBus } from './event-bus.js';
import { startedOnFirstUse } from './lifecycle.js';

const minuteMs = 60_000;
/** After a stall (a laptop asleep), minutes missed within this window still fire once each; older ones are skipped. */
const catchUpMs = 5 * minuteMs;

export interface LocalSchedulerOptions {
  clock: Clock;
  publish(event: PlatformEventInput): Promise<unknown>;
  /** Where definitions persist; none keeps them in memory. */
  file?: string;
  /** Tick on the wall clock every minute; tests leave it off and call `tick()` with their own clock. */
  heartbeat: boolean;
}

export interface LocalScheduler extends SchedulerPort {
  /** Fires every enabled schedule due in the minutes since the last tick, up to the clock's current minute; returns how many fired. */
  tick(): Promise<number>;
  stop(): void;
}

export function createLocalScheduler(options: LocalSchedulerOptions): LocalScheduler {
  const schedules = new Map<string, { definition: ScheduleDefinition; cron: CronSchedule }>();
  let lastMinute: number | undefined;
  let heartbeat: Cron | undefined;

  const remember = (definition: ScheduleDefinition) => schedules.set(definition.name, { definition, cron: parseCron(definition.cronExpression) });
  if (options.file && existsSync(options.file)) {
    for (const definition of JSON.parse(readFileSync(options.file, 'utf8')) as ScheduleDefinition[]) remember(definition);
  }

  function persist() {
    if (!options.file) return;
    const temporary = `${options.file}.tmp`;
    writeFileSync(temporary, JSON.stringify([...schedules.values()].map(({ definition }) => definition)));
    renameSync(temporary, options.file);
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
    async remove(name) {
      if (schedules.delete(name)) persist();
    },
    async tick() {
      const minute = Math.floor(options.clock.now() / minuteMs) * minuteMs;
      const from = lastMinute === undefined ? minute : Math.max(lastMinute + minuteMs, minute - catchUpMs);
      lastMinute = Math.max(lastMinute ?? minute, minute);
      let fired = 0;
      for (let at = from; at <= minute; at += minuteMs) {
        const date = new Date(at);
        for (const { definition, cron } of schedules.values()) {
          if (!definition.enabled || !cronMatches(cron, date)) continue;
          const { type, userId, detail } = definition.event;
          await options.publish({ ...detail, type, userId, source: 'scheduler', scheduledTime: date.toISOString() });
          fired++;
        }
      }
      return fired;
    },
    stop() {
      heartbeat?.stop();
      heartbeat = undefined;
    },
  };
  if (schedules.size) startHeartbeat();
  return scheduler;
}

/** The platform's local scheduler, started on first use with the definitions of the last run. */
export const localScheduler: () => LocalScheduler = startedOnFirstUse(
  () =>
    createLocalScheduler({
      clock: systemClock,
      publish: (event) => inProcessBus.publish(event),
      file: join(settings.dataDir, 'schedules.json'),
      heartbeat: true,
    }),
  (scheduler) => scheduler.stop(),
);
