// Repeated requests answer the first answer: within 24 hours the same key on the same operation by the same caller (or,
// for a webhook, to the same receive URL) gets the first answer again, and the work runs once. Concurrent repeats wait
// for the first's answer; a refusal (4xx) changed nothing, so it is not kept and a retry may do the work.
import { createHash } from 'node:crypto';
import { ConflictError, ValidationError } from '../errors.js';
import type { IdempotencyStore, StoredAnswer } from '../idempotency-store.js';
import type { IdempotencyKind, Route } from '../route.js';
import { logger } from '../logger.js';
import { errorResult } from './envelope.js';
import type { HttpEvent, HttpResult, RequestState } from './request-state.js';

/**
 * Where senders put a delivery's id, first found wins: the generic Idempotency-Key, GitHub's X-GitHub-Delivery and
 * the Standard Webhooks' (Svix, and many others) webhook-id; Stripe signs a header and puts its event's id in the body.
 * X-Request-Id is not one: proxies set it per attempt, so a redelivery would not match.
 */
export const webhookDeliveryHeaders = ['Idempotency-Key', 'X-GitHub-Delivery', 'webhook-id'] as const;

const printableAscii = /^[\x20-\x7e]{1,255}$/;

interface PresentedKey {
  field: string;
  value: string;
}

function stripeEventId(rawBody: string): string | undefined {
  try {
    const body = JSON.parse(rawBody) as { id?: unknown };
    return typeof body?.id === 'string' ? body.id : undefined;
  } catch {
    return undefined;
  }
}

function presentedKey(kind: IdempotencyKind, event: HttpEvent, rawBody: string): PresentedKey | undefined {
  const headers = event.headers;
  const names = kind === 'caller' ? ['Idempotency-Key'] : webhookDeliveryHeaders;
  for (const name of names) {
    const value = headers[name.toLowerCase()];
    if (value !== undefined) return { field: name, value };
  }
  if (kind === 'webhookDelivery' && headers['stripe-signature']) {
    const id = stripeEventId(rawBody);
    if (id !== undefined) return { field: 'body.id', value: id };
  }
  return undefined;
}

/** The same value whatever the order of its keys, so a repeat that lists fields in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Headers of the first answer worth repeating: not the ones that describe the request that got it. */
function keptHeaders(result: HttpResult): Record<string, string> {
  return Object.fromEntries(
    Object.entries(result.headers ?? {})
      .filter(([name]) => name !== 'X-Request-Id' && !name.startsWith('X-RateLimit-'))
      .map(([name, value]) => [name, String(value)]),
  );
}

export interface AnswerOnceOptions {
  route: Route;
  kind: IdempotencyKind;
  state: RequestState;
  event: HttpEvent;
  input: unknown;
  rawBody: string;
  store: IdempotencyStore;
  /** How long a repeat waits for the first's answer; the first answers within the run wait, so a bit longer than that. */
  waitMs: number;
  work: () => Promise<HttpResult>;
  now?: () => number;
  pause?: (ms: number) => Promise<void>;
}

const realPause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export async function answerOnce(options: AnswerOnceOptions): Promise<HttpResult> {
  const { route, kind, state, event, store } = options;
  const now = options.now ?? Date.now;
  const pause = options.pause ?? realPause;
  const presented = presentedKey(kind, event, options.rawBody);
  if (!presented) return options.work();
  if (!printableAscii.test(presented.value))
    throw new ValidationError(presented.field, presented.value, `${presented.field} must be 1 to 255 printable ASCII characters`);

  const scope = kind === 'caller' ? state.caller!.userId : Object.values(event.pathParameters ?? {}).join('/');
  const key = `${route.operation}#${scope}#${presented.value}`;
  const fingerprint = sha256(kind === 'caller' ? canonicalJson(options.input) : options.rawBody);
  const holder = state.requestId;
  // A holder that died is presumed gone once its function's timeout has passed.
  const leaseSeconds = route.timeoutSeconds ?? 30;
  const deadline = now() + options.waitMs;

  for (let interval = 25; ; interval = Math.min(interval * 2, 500)) {
    if (await store.claim(key, holder, fingerprint, leaseSeconds, now())) return answerAndKeep(options, key, holder, now);
    const record = await store.get(key, now());
    if (record?.state === 'answered') {
      if (record.fingerprint !== fingerprint)
        throw new ConflictError(`${presented.field} ${presented.value} was used within 24 hours for a request with other content`, {
          field: presented.field,
          value: presented.value,
        });
      return replay(state, record.answer);
    }
    if (record && now() >= deadline)
      throw new ConflictError(`the request with ${presented.field} ${presented.value} is still being answered; retry later`, {
        field: presented.field,
        value: presented.value,
        inProgress: true,
      });
    if (record) await pause(Math.min(interval, Math.max(0, deadline - now())));
  }
}

async function answerAndKeep(options: AnswerOnceOptions, key: string, holder: string, now: () => number): Promise<HttpResult> {
  const { state, store } = options;
  let result: HttpResult;
  try {
    result = await options.work();
  } catch (error) {
    result = errorResult(error, state.requestId, state.headers);
  }
  const status = result.statusCode ?? 200;
  if (status >= 400 && status < 500) await store.release(key, holder);
  // The work is done: failing to keep its answer must not turn it into an error; the claim then lapses with its lease.
  else
    await store
      .answer(key, holder, { statusCode: status, headers: keptHeaders(result), body: result.body ?? '' }, now())
      .catch((error: Error) => logger.error('the answer of an idempotent request could not be kept', { requestId: state.requestId, error: error.message }));
  return result;
}

function replay(state: RequestState, answer: StoredAnswer): HttpResult {
  return {
    statusCode: answer.statusCode,
    headers: { ...answer.headers, 'X-Request-Id': state.requestId, ...state.headers, 'Idempotent-Replayed': 'true' },
    body: answer.body,
  };
}
