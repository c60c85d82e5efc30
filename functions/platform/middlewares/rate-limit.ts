// Fixed windows per key and per user, so extra keys cannot multiply a user's budget: the X-RateLimit-*
// headers of the tighter window on every answer, 429 with Retry-After past either limit.
import { AppError } from '../errors.js';
import type { RateLimiter } from '../ports.js';
import type { RequestState } from './request-state.js';

export interface RateLimits {
  perKey: number;
  perUser: number;
}

type Window = Awaited<ReturnType<RateLimiter['hit']>>;

function refuse(window: Window, per: 'key' | 'user', nowMs: number): AppError {
  const retryAfter = Math.max(1, window.resetAt - Math.floor(nowMs / 1000));
  return new AppError(
    'RATE_LIMITED',
    429,
    `rate limit of ${window.limit} requests per minute per ${per} exceeded`,
    { limit: window.limit, per, retryAfter },
    { 'Retry-After': String(retryAfter) },
  );
}

function report(state: RequestState, window: Window): void {
  state.headers['X-RateLimit-Limit'] = String(window.limit);
  state.headers['X-RateLimit-Remaining'] = String(window.remaining);
  state.headers['X-RateLimit-Reset'] = String(window.resetAt);
}

/** The key's window first: a key past its limit does not spend the user's budget its other keys share. */
export async function rateLimit(state: RequestState, limiter: Pick<RateLimiter, 'hit'>, limits: RateLimits, nowMs = Date.now()): Promise<void> {
  if (!state.caller) return;
  const byKey = await limiter.hit(`key:${state.caller.keyId}`, limits.perKey, 60);
  report(state, byKey);
  if (!byKey.allowed) throw refuse(byKey, 'key', nowMs);
  const byUser = await limiter.hit(`user:${state.caller.userId}`, limits.perUser, 60);
  if (byUser.remaining < byKey.remaining) report(state, byUser);
  if (!byUser.allowed) throw refuse(byUser, 'user', nowMs);
}
