import type { RateLimiter } from '#platform/ports.js';

/** Local mode is one process, so the fixed windows live in memory. */
export function memoryRateLimiter(): RateLimiter {
  const windows = new Map<string, { resetAt: number; hits: number }>();
  return {
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
