// The one middy stack of the platform: auth context, rate-limit headers, body parsing, zod validation,
// SPEC.md's envelope and the error-to-status mapping of DESIGN.md §3.
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import { rateLimiter } from '#adapters/rate-limiter.js';
import { config } from './config.js';
import { AppError, ForbiddenError, PayloadTooLargeError, UnauthorizedError, ValidationError } from './errors.js';
import { checkAdminKey } from './admin-key.js';
import { logger, redact } from './logger.js';
import type { Route } from './route.js';

export type HttpEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & { authorizer?: { lambda?: Record<string, unknown> } };
};
export type HttpResult = APIGatewayProxyStructuredResultV2;

export interface Caller {
  userId: string;
  keyId: string;
  scopes: string[];
}

type InputOf<R extends Route> = R['input'] extends z.ZodType ? z.output<R['input']> : Record<string, never>;

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

/** A response other than `{success: true, data}`: confirmations, metadata, or a raw body (402, documents). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
  static message(message: string) {
    return new Reply(200, { success: true, message });
  }
  static withMeta(data: unknown, meta: Record<string, unknown>) {
    return new Reply(200, { success: true, data, meta });
  }
  static data(data: unknown, status = 200, headers: Record<string, string> = {}) {
    return new Reply(status, { success: true, data }, headers);
  }
}

/** Lambda's synchronous invocation payload limit. */
export const maxBodyBytes = 6 * 1024 * 1024;

interface RequestState {
  route: Route;
  requestId: string;
  caller?: Caller;
  headers: Record<string, string>;
}

const jsonHeaders = (state: RequestState, extra: Record<string, string> = {}) => ({
  'Content-Type': 'application/json; charset=utf-8',
  'X-Request-Id': state.requestId,
  ...state.headers,
  ...extra,
});

export const errorBody = (error: AppError) => ({
  success: false,
  error: { code: error.code, message: error.message, ...(error.details && { details: error.details }) },
});

/**
 * Maps any thrown value to the envelope; unknown errors become a generic INTERNAL_ERROR without `details` (SPEC.md
 * Errors), the detail goes to the log and the X-Request-Id header ties the two together.
 */
export function errorResult(error: unknown, requestId: string, headers: Record<string, string> = {}): HttpResult {
  const known = error instanceof AppError ? error : new AppError('INTERNAL_ERROR', 500, 'internal error; quote the X-Request-Id response header to support');
  if (!(error instanceof AppError)) logger.error('unhandled error', { requestId, error: redact(error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error) as object });
  return {
    statusCode: known.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId, ...headers, ...known.headers },
    body: JSON.stringify(errorBody(known)),
  };
}

function authorizerCaller(event: HttpEvent): Caller | undefined {
  const identity = event.requestContext.authorizer?.lambda;
  if (!identity?.userId) return undefined;
  return { userId: String(identity.userId), keyId: String(identity.keyId), scopes: String(identity.scopes ?? '').split(',').filter(Boolean) };
}

export const hasScope = (caller: Caller, wanted: string[]) => caller.scopes.includes('*') || wanted.some((scope) => caller.scopes.includes(scope));

async function authenticate(state: RequestState, event: HttpEvent) {
  const { route } = state;
  if (route.auth === 'admin') return checkAdminKey(event.headers['x-admin-key']);
  if (route.auth !== 'apiKey') return;
  const caller = authorizerCaller(event);
  if (!caller) {
    const reason = event.requestContext.authorizer?.lambda?.reason;
    throw new UnauthorizedError(reason === 'revoked' ? 'this API key has been revoked' : undefined);
  }
  state.caller = caller;
  const window = await rateLimiter().hit(`key:${caller.keyId}`, config.requestsPerMinute, 60);
  state.headers['X-RateLimit-Limit'] = String(window.limit);
  state.headers['X-RateLimit-Remaining'] = String(window.remaining);
  state.headers['X-RateLimit-Reset'] = String(window.resetAt);
  if (!window.allowed) {
    const retryAfter = Math.max(1, window.resetAt - Math.floor(Date.now() / 1000));
    throw new AppError('RATE_LIMITED', 429, `rate limit of ${window.limit} requests per minute exceeded`, { limit: window.limit, retryAfter }, { 'Retry-After': String(retryAfter) });
  }
  if (route.scopes?.length && !hasScope(caller, route.scopes)) {
    throw new ForbiddenError(`this API key lacks the scope ${route.scopes.join(' or ')}`, { requiredScopes: route.scopes });
  }
}

function readBody(event: HttpEvent): string {
  if (!event.body) return '';
  const body = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const size = Buffer.byteLength(body);
  if (size > maxBodyBytes) throw new PayloadTooLargeError(size, maxBodyBytes);
  return body;
}

function parseJson(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ValidationError('body', raw.slice(0, 200), `malformed JSON body: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('body', parsed, 'the JSON body must be an object');
  }
  return parsed as Record<string, unknown>;
}

const valueAt = (source: unknown, path: PropertyKey[]) =>
  path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), source);

/** The first zod issue as VALIDATION_ERROR with `details.field` and `details.value`, all issues listed. */
export function zodToValidationError(error: z.ZodError, source: unknown): ValidationError {
  const issues = error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = keys.length ? [...issue.path, keys[0]!] : issue.path;
    return { field: path.join('.') || 'body', path, message: issue.message };
  });
  const first = issues[0]!;
  const message = first.message.startsWith('Unrecognized key') ? `unknown field ${first.field}` : `${first.field}: ${first.message}`;
  return new ValidationError(first.field, valueAt(source, first.path) ?? null, message, {
    issues: issues.map(({ field, message: text }) => ({ field, message: text })),
  });
}

export function parseInput<S extends z.ZodType>(schema: S, source: unknown): z.output<S> {
  const result = schema.safeParse(source);
  if (!result.success) throw zodToValidationError(result.error, source);
  return result.data;
}

function baseUrlOf(event: HttpEvent): string {
  const proto = event.headers['x-forwarded-proto'] ?? (config.mode === 'local' ? 'http' : 'https');
  return process.env.PUBLIC_BASE_URL ?? `${proto}://${event.requestContext.domainName}`;
}

export function httpHandler<R extends Route>(route: R, run: (args: HandlerArgs<InputOf<R>>) => Promise<unknown>) {
  const states = new WeakMap<HttpEvent, RequestState>();
  const handler = middy<HttpEvent, HttpResult>()
    .use({
      before: async (request) => {
        const state: RequestState = { route, requestId: request.event.requestContext.requestId, headers: {} };
        states.set(request.event, state);
        logger.appendKeys({ requestId: state.requestId, operation: route.operation });
        await authenticate(state, request.event);
      },
      onError: async (request) => {
        const state = states.get(request.event);
        request.response = errorResult(request.error, request.event.requestContext.requestId, state?.headers);
      },
    })
    .handler(async (event) => {
      const state = states.get(event)!;
      const rawBody = readBody(event);
      const source = { ...(event.queryStringParameters ?? {}), ...(route.method === 'GET' ? {} : parseJson(rawBody)), ...(event.pathParameters ?? {}) };
      const input = (route.input ? parseInput(route.input, source) : {}) as InputOf<R>;
      const caller = state.caller;
      const result = await run({
        input,
        get caller() {
          if (!caller) throw new UnauthorizedError();
          return caller;
        },
        requestId: state.requestId,
        headers: event.headers,
        rawBody,
        baseUrl: baseUrlOf(event),
        event,
      });
      if (result instanceof Reply) {
        const isJson = typeof result.body !== 'string';
        return {
          statusCode: result.status,
          headers: isJson ? jsonHeaders(state, result.headers) : { 'X-Request-Id': state.requestId, ...state.headers, ...result.headers },
          body: isJson ? JSON.stringify(result.body) : (result.body as string),
        };
      }
      return { statusCode: route.successStatus ?? 200, headers: jsonHeaders(state), body: JSON.stringify({ success: true, data: result }) };
    });
  return Object.assign(handler, { route });
}
