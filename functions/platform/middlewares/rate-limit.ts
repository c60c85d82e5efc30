// Per-key fixed window (DESIGN.md §3): the X-RateLimit-* headers on every answer, 429 with Retry-After past the limit.
import { AppError } from '../errors.js';
import type { RateLimiter } from '../ports.js';
import type { RequestState } from './request-state.js';

export async function rateLimit(state: RequestState, limiter: RateLimiter, requestsPerMinute: number, nowMs = Date.now()): Promise<void> {
  if (!state.caller) return;
  const window = await limiter.hit(`key:${state.caller.keyId}`, requestsPerMinute, 60);
  state.headers['X-RateLimit-Limit'] = String(window.limit);
  state.headers['X-RateLimit-Remaining'] = String(window.remaining);
  state.headers['X-RateLimit-Reset'] = String(window.resetAt);
  if (!window.allowed) {
    const retryAfter = Math.max(1, window.resetAt - Math.floor(nowMs / 1000));
    throw new AppError('RATE_LIMITED', 429, `rate limit of ${window.limit} requests per minute exceeded`, { limit: window.limit, retryAfter }, { 'Retry-After': String(retryAfter) });
  }
}
