// The local scheduler's one-time firings: adding one appends to the log (the others are not rewritten), arming finds
// the earliest without spreading every firing into Math.min, and a restart finds what was pending or being delivered.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOneShotStore } from '../../functions/adapters/local/one-shot-store.js';
import { createLocalScheduler } from '../../functions/adapters/local/scheduler.js';
import type { OneShotDefinition } from '../../functions/platform/ports.js';

const start = Date.parse('2026-03-02T09:00:00.000Z');
const once = (index: number, offsetMs = (index + 1) * 1000): OneShotDefinition => ({
  name: `dw-exe_${index}`,
  at: new Date(start + offsetMs).toISOString(),
  event: { type: 'platform.durable_wake', userId: 'usr_1', detail: { executionId: `exe_${index}` } },
});
const logFile = () => join(mkdtempSync(join(tmpdir(), 'one-shots-')), 'one-shots.json');

describe('local one-shot store', () => {
  it('adds a firing by appending one line: the lines of the others stay as they were', () => {
    // Prepare
    const file = logFile();
    const store = createOneShotStore(file);
    for (let index = 0; index < 500; index++) store.put(once(index));
    const before = readFileSync(file, 'utf8');
    // Act
    store.put(once(500));
    // Assess
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length).trim().split('\n')).toHaveLength(1);
  });

  it('answers the earliest firing and takes those due in order, skipping removed and replaced ones', () => {
    // Prepare
    const store = createOneShotStore();
    for (const index of [5, 1, 9, 3]) store.put(once(index));
    store.remove(once(1).name);
    store.put(once(3, 20_000));
    // Act
    const earliest = store.earliest();
    const due = store.takeDue(start + 10_000);
    // Assess
    expect(earliest).toBe(start + 6_000);
    expect(due.map((each) => each.name)).toEqual([once(5).name, once(9).name]);
    expect(store.all().map((each) => each.name)).toEqual([once(3).name]);
  });

  it('finds after a restart what was pending, from the log and from the first format (one JSON array)', () => {
    // Prepare
    const file = logFile();
    const first = createOneShotStore(file);
    for (let index = 0; index < 10; index++) first.put(once(index));
    first.remove(once(4).name);
    for (const taken of first.takeDue(start + 2_000)) first.done(taken);
    // Act
    const restarted = createOneShotStore(file);
    // Assess
    expect(
      restarted
        .all()
        .map((each) => each.name)
        .sort(),
    ).toEqual([2, 3, 5, 6, 7, 8, 9].map((index) => once(index).name).sort());
    expect(restarted.earliest()).toBe(start + 3_000);
  });

  it('keeps a firing taken but not delivered for the next start, and lets go one delivered or put again meanwhile', () => {
    // Prepare
    const file = logFile();
    const first = createOneShotStore(file);
    for (let index = 0; index < 3; index++) first.put(once(index));
    const [delivered, cutOff, putAgain] = first.takeDue(start + 3_000);
    first.done(delivered!);
    first.put(once(2, 60_000));
    first.done(putAgain!);
    // Act
    const restarted = createOneShotStore(file);
    // Assess
    expect(first.all().map((each) => each.name)).toEqual([once(2).name]);
    expect(restarted.takeDue(start + 3_000)).toEqual([cutOff]);
    expect(restarted.all()).toEqual([once(2, 60_000)]);
  });

  it('arms 200,000 pending firings without throwing, at the earliest of them', async () => {
    // Prepare
    const clock = { now: () => start, nowIso: () => new Date(start).toISOString() };
    const fired: unknown[] = [];
    const scheduler = createLocalScheduler({ clock, publish: async (event) => void fired.push(event), heartbeat: true });
    try {
      // Act
      for (let index = 0; index < 200_000; index++) await scheduler.putOnce(once(index, 365 * 86_400_000 - index));
      // Assess
      expect(scheduler.pendingOneShots()).toHaveLength(200_000);
      expect(fired).toEqual([]);
    } finally {
      scheduler.stop();
    }
  });
});
