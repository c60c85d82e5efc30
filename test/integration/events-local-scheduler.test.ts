import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalScheduler } from '../../functions/adapters/local/scheduler.js';
import type { PlatformEventInput, ScheduleDefinition } from '../../functions/platform/ports.js';

function fakeClock(iso: string) {
  let now = Date.parse(iso);
  return { now: () => now, nowIso: () => new Date(now).toISOString(), set: (next: string) => (now = Date.parse(next)) };
}

const definition = (name: string, cronExpression: string, enabled = true): ScheduleDefinition => ({
  name,
  cronExpression,
  enabled,
  event: { type: 'platform.script_schedule', userId: 'usr_1', detail: { scheduleId: name } },
});

function scheduler(clock: ReturnType<typeof fakeClock>, file?: string, oneShotFile?: string) {
  const published: PlatformEventInput[] = [];
  const local = createLocalScheduler({ clock, publish: async (event) => void published.push(event), file, oneShotFile, heartbeat: false });
  return { local, published };
}

describe('local scheduler', () => {
  it('fires each enabled schedule in the UTC minutes its cron matches, once per minute', async () => {
    // Prepare
    const clock = fakeClock('2026-03-02T09:00:00.000Z');
    const { local, published } = scheduler(clock);
    await local.put(definition('every-5', '*/5 * * * *'));
    await local.put(definition('monday-9', '0 9 * * 1'));
    await local.put(definition('paused', '* * * * *', false));
    // Act
    const at9 = await local.tick();
    const sameMinute = await local.tick();
    clock.set('2026-03-02T09:04:59.000Z');
    const before5 = await local.tick();
    clock.set('2026-03-02T09:05:00.000Z');
    const at905 = await local.tick();
    // Assess
    expect([at9, sameMinute, before5, at905]).toEqual([2, 0, 0, 1]);
    expect(published).toEqual([
      { scheduleId: 'every-5', type: 'platform.script_schedule', userId: 'usr_1', source: 'scheduler', scheduledTime: '2026-03-02T09:00:00.000Z' },
      { scheduleId: 'monday-9', type: 'platform.script_schedule', userId: 'usr_1', source: 'scheduler', scheduledTime: '2026-03-02T09:00:00.000Z' },
      { scheduleId: 'every-5', type: 'platform.script_schedule', userId: 'usr_1', source: 'scheduler', scheduledTime: '2026-03-02T09:05:00.000Z' },
    ]);
  });

  it('catches up on minutes missed during a short stall, but not on older ones', async () => {
    // Prepare
    const clock = fakeClock('2026-03-02T09:00:00.000Z');
    const { local, published } = scheduler(clock);
    await local.put(definition('every-minute', '* * * * *'));
    await local.tick();
    // Act
    clock.set('2026-03-02T09:03:00.000Z');
    const afterStall = await local.tick();
    clock.set('2026-03-02T10:00:00.000Z');
    const afterSleep = await local.tick();
    // Assess
    expect([afterStall, afterSleep]).toEqual([3, 6]);
    expect(published.at(-1)).toMatchObject({ scheduledTime: '2026-03-02T10:00:00.000Z' });
  });

  it('stops firing a removed schedule and replaces one put again under the same name', async () => {
    // Prepare
    const clock = fakeClock('2026-03-02T09:00:00.000Z');
    const { local, published } = scheduler(clock);
    await local.put(definition('a', '* * * * *'));
    await local.put(definition('b', '* * * * *'));
    // Act
    await local.remove('a');
    await local.put(definition('b', '* * * * *', false));
    const fired = await local.tick();
    // Assess
    expect(fired).toBe(0);
    expect(published).toEqual([]);
  });

  it('keeps its schedules across a restart, as AWS keeps them across deployments', async () => {
    // Prepare
    const file = join(mkdtempSync(join(tmpdir(), 'schedules-')), 'schedules.json');
    const clock = fakeClock('2026-03-02T09:00:00.000Z');
    const first = scheduler(clock, file);
    await first.local.put(definition('kept', '0 9 * * *'));
    await first.local.put(definition('dropped', '0 9 * * *'));
    await first.local.remove('dropped');
    // Act
    const restarted = scheduler(clock, file);
    const fired = await restarted.local.tick();
    // Assess
    expect(fired).toBe(1);
    expect(restarted.published).toMatchObject([{ scheduleId: 'kept' }]);
  });

  it('fires a one-time firing once when it comes due, as a recurring firing is put on the bus', async () => {
    // Prepare
    const clock = fakeClock('2026-03-02T09:00:00.000Z');
    const { local, published } = scheduler(clock);
    await local.putOnce({ name: 'retry-1', at: '2026-03-02T09:01:00.000Z', event: { type: 'platform.flow_retry', userId: 'usr_1', detail: { attempt: 1 } } });
    // Act
    const early = await local.fireOneShots();
    clock.set('2026-03-02T09:01:00.000Z');
    const due = await local.fireOneShots();
    const again = await local.fireOneShots();
    // Assess
    expect([early, due, again]).toEqual([0, 1, 0]);
    expect(published).toEqual([{ attempt: 1, type: 'platform.flow_retry', userId: 'usr_1', source: 'scheduler', scheduledTime: '2026-03-02T09:01:00.000Z' }]);
    expect(local.pendingOneShots()).toEqual([]);
  });

  it('removes a pending one-time firing or a recurring schedule by its name, through the same remove', async () => {
    // Prepare
    const clock = fakeClock('2026-03-02T09:00:00.000Z');
    const { local, published } = scheduler(clock);
    await local.put(definition('every-minute', '* * * * *'));
    await local.putOnce({ name: 'retry-1', at: '2026-03-02T09:00:00.000Z', event: { type: 'platform.flow_retry', userId: 'usr_1', detail: {} } });
    // Act
    await local.remove('retry-1');
    await local.remove('every-minute');
    await local.remove('never-existed');
    const fired = [await local.fireOneShots(), await local.tick()];
    // Assess
    expect(fired).toEqual([0, 0]);
    expect(published).toEqual([]);
  });

  it('keeps its pending one-time firings across a restart', async () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'schedules-'));
    const clock = fakeClock('2026-03-02T09:00:00.000Z');
    const first = scheduler(clock, join(folder, 'schedules.json'), join(folder, 'one-shots.json'));
    await first.local.putOnce({ name: 'kept', at: '2026-03-02T09:00:00.000Z', event: { type: 'platform.flow_retry', userId: 'usr_1', detail: {} } });
    await first.local.putOnce({ name: 'dropped', at: '2026-03-02T09:00:00.000Z', event: { type: 'platform.flow_retry', userId: 'usr_1', detail: {} } });
    await first.local.remove('dropped');
    // Act
    const restarted = scheduler(clock, join(folder, 'schedules.json'), join(folder, 'one-shots.json'));
    const fired = await restarted.local.fireOneShots();
    // Assess
    expect(fired).toBe(1);
    expect(restarted.local.pendingOneShots()).toEqual([]);
  });
});
