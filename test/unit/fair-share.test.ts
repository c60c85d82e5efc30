// The shares of the local worker pool as rules: who may use the reserve, and which waiting run goes first.
import { describe, expect, it } from 'vitest';
import { createFairShare } from '../../functions/adapters/local/fair-share.js';

const pool = { workers: 8, memoryMb: 8000 };
const withReserve = { workers: 10, memoryMb: 10_000 };

describe('local script runtime: fair shares', () => {
  it('lets a lone tenant fill the pool but not the reserve', () => {
    // Prepare
    const fair = createFairShare(pool);
    for (let i = 0; i < 8; i++) fair.hold('usr_a', 100);
    // Act
    const caps = fair.capsFor('usr_a', 100);
    // Assess
    expect(caps).toEqual([pool]);
  });

  it('opens the reserve to a tenant under its share while another fills the pool, and closes it past the share', () => {
    // Prepare
    const fair = createFairShare(pool);
    for (let i = 0; i < 8; i++) fair.hold('usr_a', 1000);
    // Act
    const first = fair.capsFor('usr_b', 100);
    for (let i = 0; i < 4; i++) fair.hold('usr_b', 100);
    const pastShare = fair.capsFor('usr_b', 100);
    const heavy = createFairShare(pool);
    heavy.hold('usr_a', 1000);
    const tooHeavy = heavy.capsFor('usr_b', 4500);
    // Assess
    expect(first).toEqual([pool, withReserve]);
    expect(pastShare).toEqual([pool]);
    expect(tooHeavy).toEqual([pool]);
  });

  it('serves the waiting tenant holding fewer workers first, whoever asked first', () => {
    // Prepare
    const fair = createFairShare(pool);
    for (let i = 0; i < 3; i++) fair.hold('usr_a', 100);
    fair.hold('usr_b', 100);
    const a = fair.wait('usr_a');
    const b = fair.wait('usr_b');
    // Act
    const turns = [fair.isTurnOf(a), fair.isTurnOf(b)];
    fair.stopWaiting(b);
    const afterB = fair.isTurnOf(a);
    // Assess
    expect(turns).toEqual([false, true]);
    expect(afterB).toBe(true);
  });

  it('forgets a tenant once it holds nothing, so its share goes back to the others', () => {
    // Prepare
    const fair = createFairShare(pool);
    fair.hold('usr_b', 100);
    fair.release('usr_b', 100);
    for (let i = 0; i < 7; i++) fair.hold('usr_a', 100);
    // Act
    const caps = fair.capsFor('usr_a', 100);
    // Assess
    expect(caps).toEqual([pool, withReserve]);
  });
});
