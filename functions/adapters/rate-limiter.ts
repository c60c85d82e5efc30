import { settings } from '#platform/settings.js';
import type { RateLimiter } from '#platform/ports.js';
import { dynamoRateLimiter } from './aws/rate-limiter.js';
import { memoryRateLimiter } from './local/rate-limiter.js';

let local: RateLimiter | undefined;

export const rateLimiter = (): RateLimiter => (settings.mode === 'local' ? (local ??= memoryRateLimiter()) : dynamoRateLimiter);
