// The interface's envelope and the error-to-status mapping of the design, in one place.
import { AppError } from '../errors.js';
import { logger, redact } from '../logger.js';
import type { Route } from '../route.js';
import type { HttpResult, RequestState } from './request-state.js';

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
 * Maps any thrown value to the envelope; unknown errors become a generic INTERNAL_ERROR without `details` (the interface
 * Errors), the detail goes to the log and the X-Request-Id header ties the two together.
 */
export function errorResult(error: unknown, requestId: string, headers: Record<string, string> = {}): HttpResult {
  const known = error instanceof AppError ? error : new AppError('INTERNAL_ERROR', 500, 'internal error; quote the X-Request-Id response header to support');
  if (!(error instanceof AppError))
    logger.error('unhandled error', {
      requestId,
      error: redact(error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error) as object,
    });
  return {
    statusCode: known.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId, ...headers, ...known.headers },
    body: JSON.stringify(errorBody(known)),
  };
}

/** The handler's result as the response: a Reply as it asks, anything else as `{success: true, data}`. */
export function envelope(route: Route, state: RequestState, result: unknown): HttpResult {
  if (result instanceof Reply) {
    const isJson = typeof result.body !== 'string';
    return {
      statusCode: result.status,
      headers: isJson ? jsonHeaders(state, result.headers) : { 'X-Request-Id': state.requestId, ...state.headers, ...result.headers },
      body: isJson ? JSON.stringify(result.body) : (result.body as string),
    };
  }
  return { statusCode: route.successStatus ?? 200, headers: jsonHeaders(state), body: JSON.stringify({ success: true, data: result }) };
}
