import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { settings } from './settings.js';

const requestKeys = new AsyncLocalStorage<LogAttributes>();

/**
 * Runs `work` with these keys on every line logged inside it, through all its awaits. Keys appended to the one shared
 * logger would leak: requests handled at once in one process (the local server) would log each other's identity.
 */
export function withLogKeys<T>(keys: LogAttributes, work: () => T): T {
  return requestKeys.run({ ...requestKeys.getStore(), ...keys }, work);
}

/** Adds the keys of the request being handled to each line; a line's own attributes come after them and win. */
class RequestLogger extends Logger {
  protected override createAndPopulateLogItem(logLevel: number, input: LogItemMessage, extraInput: LogItemExtraInput) {
    const keys = requestKeys.getStore();
    // Powertools merges each extra item in order (an Error or a string under its own key), so the request's come first.
    return super.createAndPopulateLogItem(logLevel, input, keys ? ([keys, ...extraInput] as LogItemExtraInput) : extraInput);
  }
}

export const logger: Logger = new RequestLogger({ serviceName: settings.serviceName });

const secretKey =
  /^(api[-_]?key|x-api-key|x-admin-key|authorization|password|secret|token|access[-_]?token|refresh[-_]?token|client[-_]?secret|credentials?|x-payment|payment-signature|webhook[-_]?secret)$/i;

/** Copies a value for logging with every secret-looking field replaced; log lines never carry keys or credentials. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, secretKey.test(key) ? '[redacted]' : redact(inner, depth + 1)]),
  );
}
