// Tenants' shares of the local worker pool. A run cannot be preempted, so fairness is decided at admission: a lone
// tenant may fill the whole pool (workers and reserved memory) while nobody else waits; a tenant under its fair
// share (the pool divided by the tenants holding or waiting for workers) may also use a reserve beyond the pool, so
// another tenant's sleeping runs never make it wait; among waiting runs, the tenant holding fewest workers goes first.

export interface PoolCaps {
  workers: number;
  memoryMb: number;
}

/** A quarter of the pool is kept beyond it for tenants under their share (at least one worker). */
export const reserveOf = (pool: PoolCaps): PoolCaps => ({ workers: Math.max(1, Math.ceil(pool.workers / 4)), memoryMb: Math.floor(pool.memoryMb / 4) });

export function createFairShare(pool: PoolCaps) {
  const held = new Map<string, PoolCaps>();
  const waiting = new Set<{ tenant: string }>();
  const heldBy = (tenant: string): PoolCaps => held.get(tenant) ?? { workers: 0, memoryMb: 0 };

  function tenantsSharing(tenant: string): number {
    const tenants = new Set([...held.keys(), ...[...waiting].map((waiter) => waiter.tenant), tenant]);
    return tenants.size;
  }

  return {
    /**
     * The caps a new worker of `tenant` may fit under, tried in order: the pool (idle workers make room first), then,
     * while the tenant stays under its share, the pool and the reserve.
     */
    capsFor(tenant: string, memoryMb: number): PoolCaps[] {
      const tenants = tenantsSharing(tenant);
      const mine = heldBy(tenant);
      const underShare = mine.workers + 1 <= Math.ceil(pool.workers / tenants) && mine.memoryMb + memoryMb <= pool.memoryMb / tenants;
      if (!underShare) return [pool];
      const reserve = reserveOf(pool);
      return [pool, { workers: pool.workers + reserve.workers, memoryMb: pool.memoryMb + reserve.memoryMb }];
    },

    /** Whether no waiting run of a tenant holding fewer workers comes before this one. */
    isTurnOf(waiter: { tenant: string }): boolean {
      const mine = heldBy(waiter.tenant).workers;
      return ![...waiting].some((other) => other !== waiter && heldBy(other.tenant).workers < mine);
    },

    wait(tenant: string): { tenant: string } {
      const waiter = { tenant };
      waiting.add(waiter);
      return waiter;
    },

    stopWaiting(waiter: { tenant: string }): void {
      waiting.delete(waiter);
    },

    hold(tenant: string, memoryMb: number): void {
      const mine = heldBy(tenant);
      held.set(tenant, { workers: mine.workers + 1, memoryMb: mine.memoryMb + memoryMb });
    },

    release(tenant: string, memoryMb: number): void {
      const mine = heldBy(tenant);
      if (mine.workers <= 1) held.delete(tenant);
      else held.set(tenant, { workers: mine.workers - 1, memoryMb: mine.memoryMb - memoryMb });
    },
  };
}

export type FairShare = ReturnType<typeof createFairShare>;
