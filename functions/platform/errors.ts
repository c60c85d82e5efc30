// Named domain errors. One middleware (http.ts) maps each to the interface's code and the design's status.
import { boundedEcho } from './json-bounds.js';

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(field: string, value: unknown, message: string, extra: ErrorDetails = {}) {
    super('VALIDATION_ERROR', 400, message, { field, value: boundedEcho(value), ...extra });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(size: number, limit: number) {
    super('VALIDATION_ERROR', 413, `request body is ${size} bytes; the limit is ${limit}`, { field: 'body', value: size, limit });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'a valid API key is required (X-API-Key or Authorization: Bearer)') {
    super('UNAUTHORIZED', 401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('FORBIDDEN', 403, message, details);
  }
}

export class NotFoundError extends AppError {
  constructor(field: string, id: string, what = field.replace(/Id$/, '')) {
    super('NOT_FOUND', 404, `${what} ${id} not found`, { [field]: id });
  }
}

export class RouteNotFoundError extends AppError {
  constructor(method: string, path: string) {
    super('NOT_FOUND', 404, `no route for ${method} ${path}`, { method, path });
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, path: string, allowed: string[]) {
    super('METHOD_NOT_ALLOWED', 405, `${method} is not allowed on ${path}`, { method, path, allowed }, { Allow: allowed.join(', ') });
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('CONFLICT', 409, message, details);
  }
}

export class CostLimitExceededError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('COST_LIMIT_EXCEEDED', 422, message, details);
  }
}

export class BudgetExceededError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('BUDGET_EXCEEDED', 422, message, details);
  }
}

/** 429 family: RATE_LIMITED, DAILY_LIMIT_EXCEEDED, CONCURRENCY_LIMIT; always with Retry-After. */
export class TooManyRequestsError extends AppError {
  constructor(
    code: 'RATE_LIMITED' | 'DAILY_LIMIT_EXCEEDED' | 'CONCURRENCY_LIMIT',
    message: string,
    retryAfterSeconds: number,
    details?: ErrorDetails,
    headers: Record<string, string> = {},
  ) {
    super(code, 429, message, { retryAfter: retryAfterSeconds, ...details }, { ...headers, 'Retry-After': String(retryAfterSeconds) });
  }
}

export class TimeoutError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('TIMEOUT', 504, message, details);
  }
}

export class UpstreamError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('UPSTREAM_ERROR', 502, message, details);
  }
}
