import { config } from '#platform/config.js';
import type { RateLimiter } from '#platform/ports.js';
import { dynamoRateLimiter } from './aws/rate-limiter.js';
import { memoryRateLimiter } from './local/rate-limiter.js';

let local: RateLimiter | undefined;

export const rateLimiter = (): RateLimiter => (config.mode === 'local' ? (local ??= memoryRateLimiter()) : dynamoRateLimiter);
