// The one middy stack of the platform, composed of named middlewares (functions/platform/middlewares/): authenticate,
// rate limit, scopes, parse, validate, then the handler, then the envelope; traced (inside Lambda) and measured around
// it all.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { Caller } from './caller.js';
import { edgePorts } from './edge.js';
import { TimeoutError, UnauthorizedError } from './errors.js';
import { StreamReply, streamedResult } from './event-stream.js';
import { logger, withLogKeys } from './logger.js';
import { authenticate, checkScopes } from './middlewares/authenticate.js';
import { envelope, errorResult } from './middlewares/envelope.js';
import { answerOnce } from './middlewares/idempotency.js';
import { observeOperation } from './middlewares/observe.js';
import { readBody } from './middlewares/parse.js';
import { rateLimit } from './middlewares/rate-limit.js';
import type { HttpEvent, HttpResult, RequestState } from './middlewares/request-state.js';
import { type InputOf, validateInput } from './middlewares/validate.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { IdempotencyKind, Route } from './route.js';
import { settings } from './settings.js';
import { tracer } from './tracer.js';

export type { Caller } from './caller.js';
export { hasScope } from './caller.js';
export { Reply, errorBody, errorResult } from './middlewares/envelope.js';
export { maxBodyBytes } from './middlewares/parse.js';
export type { HttpEvent, HttpResult } from './middlewares/request-state.js';
export { parseInput, zodToValidationError } from './validation.js';

export interface HandlerArgs<I> {
  input: I;
  /** The authenticated caller; reading it on a public route is a 401. */
  caller: Caller;
  requestId: string;
  headers: Record<string, string | undefined>;
  rawBody: string;
  /** Scheme and host the request came in on, for URLs handed back to the caller. */
  baseUrl: string;
  event: HttpEvent;
}

/** Scheme and host a request came in on (PUBLIC_BASE_URL when set): the platform's address as its caller sees it. */
export function requestBaseUrl(request: { headers?: Record<string, string | undefined>; requestContext: { domainName: string } }): string {
  const proto = request.headers?.['x-forwarded-proto'] ?? (settings.mode === 'local' ? 'http' : 'https');
  return settings.publicBaseUrl ?? `${proto}://${request.requestContext.domainName}`;
}

/** How a route's answer is produced: the work itself, or, on an idempotent route, its first answer kept for repeats. */
type Answer = (state: RequestState, event: HttpEvent, input: unknown, rawBody: string, work: () => Promise<HttpResult>) => Promise<HttpResult>;

const answerDirectly: Answer = (_state, _event, _input, _rawBody, work) => work();

function answerIdempotently(route: Route, kind: IdempotencyKind): Answer {
  // Loaded by the idempotent routes' functions only: the others do without it.
  let store: Promise<IdempotencyStore> | undefined;
  return async (state, event, input, rawBody, work) =>
    answerOnce({
      route,
      kind,
      state,
      event,
      input,
      rawBody,
      store: await (store ??= import('./idempotency-store.js').then((module) => module.dynamoIdempotencyStore)),
      // A repeat waits a little longer than the first takes to answer (it answers 202 at the run wait).
      waitMs: settings.runWaitMs + 2000,
      work,
    });
}

/** Time kept back from the function's own timeout to answer in the envelope (error mapping, metrics) before Lambda stops it. */
export const answerMarginMs = 500;

/** What a handler that runs out of its function's time answers: 504 TIMEOUT in the envelope (middy's own error would be a 500). */
function outOfTime(route: Route): never {
  logger.warn('the handler ran out of time; answered 504', { operation: route.operation });
  throw new TimeoutError('the request did not finish in time; work it started may still complete, so read its state before retrying');
}

export function httpHandler<R extends Route>(route: R, run: (args: HandlerArgs<InputOf<R>>) => Promise<unknown>) {
  const states = new WeakMap<HttpEvent, RequestState>();
  // Decided once per route, not per request.
  const answer = route.idempotency ? answerIdempotently(route, route.idempotency) : answerDirectly;
  const handler = middy<HttpEvent, HttpResult>({ timeoutEarlyInMillis: answerMarginMs, timeoutEarlyResponse: () => outOfTime(route) });
  if (tracer) handler.use(captureLambdaHandler(tracer, { captureResponse: false }));
  handler
    .use(observeOperation(route, () => edgePorts().metrics()))
    .use({
      before: async (request) => {
        const state: RequestState = { route, requestId: request.event.requestContext.requestId, headers: {} };
        states.set(request.event, state);
        await authenticate(state, request.event);
        await rateLimit(state, edgePorts().rateLimiter(), { perKey: settings.requestsPerMinute, perUser: settings.userRequestsPerMinute });
        checkScopes(state);
      },
      onError: async (request) => {
        const state = states.get(request.event);
        request.response = errorResult(request.error, request.event.requestContext.requestId, state?.headers);
      },
    })
    .handler(async (event) => {
      const state = states.get(event)!;
      const rawBody = readBody(event);
      const input = validateInput(route, event, rawBody);
      checkScopes(state, input as Record<string, unknown>);
      const caller = state.caller;
      const work = async () => {
        const result = await run({
          input,
          get caller() {
            if (!caller) throw new UnauthorizedError();
            return caller;
          },
          requestId: state.requestId,
          headers: event.headers,
          rawBody,
          baseUrl: requestBaseUrl(event),
          event,
        });
        return result instanceof StreamReply ? streamedResult(result, { 'X-Request-Id': state.requestId, ...state.headers }) : envelope(route, state, result);
      };
      return answer(state, event, input, rawBody, work);
    });
  // Every line logged while this request is handled names it, however many requests the process handles at once.
  const withRequestKeys = (event: HttpEvent, context: Context) =>
    withLogKeys({ requestId: event.requestContext.requestId, operation: route.operation, path: event.rawPath }, () => handler(event, context));
  return Object.assign(withRequestKeys, { route });
}
