import { Logger } from '@aws-lambda-powertools/logger';
import { envNames } from './env-names.js';
import { readEnv } from './settings.js';

export const logger = new Logger({ serviceName: readEnv(envNames.serviceName) ?? 'platform' });

const secretKey = /^(api[-_]?key|x-api-key|x-admin-key|authorization|password|secret|token|access[-_]?token|refresh[-_]?token|client[-_]?secret|credentials?|x-payment|payment-signature|webhook[-_]?secret)$/i;

/** Copies a value for logging with every secret-looking field replaced; log lines never carry keys or credentials. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, secretKey.test(key) ? '[redacted]' : redact(inner, depth + 1)]),
  );
}
