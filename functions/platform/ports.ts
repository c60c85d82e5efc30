// Narrow interfaces the kernel depends on; functions/adapters/{aws,local} implement them.

export interface RateWindow {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window resets. */
  resetAt: number;
}

export interface RateLimiter {
  /** Counts one hit in the fixed window of `windowSeconds` for `bucket` and reports what is left. */
  hit(bucket: string, limit: number, windowSeconds: number, now?: number): Promise<RateWindow & { allowed: boolean }>;
}
