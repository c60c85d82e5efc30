import type { RateLimiter } from '#platform/ports.js';

/** Local mode is one process, so the fixed windows and the holds live in memory. */
export function memoryRateLimiter(): RateLimiter {
  const windows = new Map<string, { resetAt: number; hits: number }>();
  /** Per bucket, when each hold lapses. */
  const holds = new Map<string, Set<{ lapsesAt: number }>>();
  return {
    async hold(bucket, limit, holdMs) {
      const now = Date.now();
      const held = holds.get(bucket) ?? new Set();
      for (const taken of held) if (taken.lapsesAt <= now) held.delete(taken);
      if (held.size >= limit) return undefined;
      const taken = { lapsesAt: now + holdMs };
      held.add(taken);
      holds.set(bucket, held);
      return {
        async release() {
          held.delete(taken);
          if (!held.size && holds.get(bucket) === held) holds.delete(bucket);
        },
      };
    },
    async hit(bucket, limit, windowSeconds, now = Date.now()) {
      const nowSeconds = now / 1000;
      let window = windows.get(bucket);
      if (!window || window.resetAt <= nowSeconds) {
        window = { resetAt: Math.floor(nowSeconds / windowSeconds) * windowSeconds + windowSeconds, hits: 0 };
        windows.set(bucket, window);
        if (windows.size > 100_000) for (const [key, old] of windows) if (old.resetAt <= nowSeconds) windows.delete(key);
      }
      window.hits += 1;
      return { allowed: window.hits <= limit, limit, remaining: Math.max(0, limit - window.hits), resetAt: window.resetAt };
    },
  };
}
