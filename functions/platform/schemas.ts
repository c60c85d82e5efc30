import bs58 from 'bs58';
import * as z from 'zod';
import { queueReasons } from './flow-control.js';

/** `limit` (1-100) and `offset` of every list; the default limit differs by operation. */
export const pagination = (defaultLimit: number) => ({
  limit: z.coerce.number().int().min(1).max(100).default(defaultLimit),
  offset: z.coerce.number().int().min(0).default(0),
});

export const isSolanaAddress = (value: string): boolean => {
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
};

export const SolanaAddress = z.string().min(32).max(44).refine(isSolanaAddress, 'must be a base58-encoded 32-byte Solana address');

/**
 * An object's identifier in a path: opaque to clients (the interface gives no format), so one that names nothing is
 * NOT_FOUND from the service, whatever its shape; only an absurd length is a VALIDATION_ERROR.
 */
export const OpaqueId = z.string().min(1).max(200);

/**
 * A JSON object of the caller's, kept as it came: `z.record` rebuilds it and drops a `__proto__` key, which is a name
 * like any other in user data (JSON.parse made it an own key).
 */
export const JsonObject = z
  .custom<Record<string, unknown>>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), 'must be an object')
  .meta({ type: 'object', additionalProperties: true });

export const IsoDate = z.iso.datetime({ offset: true });

export const Message = z.object({ message: z.string() });

/** `data` of a run still going when the synchronous wait ended (HTTP 202). */
export const RunningRun = z.object({
  executionId: z.string().describe('follow the run with this id'),
  status: z
    .enum(['queued', 'running', 'waiting'])
    .describe('waiting: a durable run suspended at a wait; queued: held by its flow control (throttle, debounce, batch)'),
  queue: z
    .object({ reason: z.enum(queueReasons), key: z.string().optional(), until: z.string().optional() })
    .optional()
    .describe('a queued run: why it waits, for which key value, and until when (at the earliest)'),
});

/** Quantities with their unit in the OpenAPI document, so a client never guesses. */
export const DurationMs = z.number().describe('duration in milliseconds');
export const MemoryMb = z.number().describe('memory in megabytes');
export const CostUsd = z.number().describe('cost in US dollars');

/** Named shapes of the OpenAPI document (`components.schemas`), for what is recursive or shared: a route's field points at one with `componentRef`. */
export const openApiComponents = z.registry<{ id: string; description: string }>();

/** The `$ref` to a named shape, as a field's metadata: `z.unknown().meta(componentRef('FlowCondition'))`. */
export const componentRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });
