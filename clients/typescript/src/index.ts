// The platform's typed client: openapi-fetch over the types generated from the OpenAPI document, with failures as
// typed errors. No Node-only imports: it runs in Node 20 and in browsers alike.
import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export { type FollowOptions, type RunEvent, type StepState, followRun } from './run-events.js';
export { type BranchRow, type NamedStep, type StepRow, groupSteps, unwrittenFanOut } from './step-groups.js';

/** The codes the platform answers with; others may be added, so `code` stays a string. */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'COST_LIMIT_EXCEEDED'
  | 'BUDGET_EXCEEDED'
  | 'RATE_LIMITED'
  | 'DAILY_LIMIT_EXCEEDED'
  | 'CONCURRENCY_LIMIT'
  | 'INTERNAL_ERROR'
  | 'TIMEOUT'
  | (string & {});

/** A `{success: false, error}` answer (or a body that is not the envelope), with its HTTP status. */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/** A 402 of a paid route: `accepts` lists the offers to pay (see `pay` in the CLI, or functions/payments/client.ts). */
export class PaymentRequiredError extends PlatformError {
  constructor(
    readonly body: { x402Version: number; error: string | null; message?: string; accepts: Array<Record<string, unknown>> },
    requestId: string | null,
  ) {
    super(402, body.error ?? 'PAYMENT_REQUIRED', body.message ?? 'payment required', undefined, requestId);
    this.name = 'PaymentRequiredError';
  }
}

/** No answer at all: the platform could not be reached (refused, unknown host, reset), with the URL and the cause. */
export class UnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly cause: unknown,
  ) {
    super(`cannot reach ${url}: ${causeOf(cause)}`);
    this.name = 'UnreachableError';
  }
}

/** fetch's own "fetch failed" says nothing; the system error under it does (`connect ECONNREFUSED 127.0.0.1:3999`). */
function causeOf(error: unknown): string {
  const inner = (error as { cause?: unknown })?.cause;
  if (inner instanceof Error) return inner.message || String((inner as { code?: string }).code);
  return error instanceof Error ? error.message : String(error);
}

export interface ClientOptions {
  /** The platform's origin, e.g. http://127.0.0.1:3000 (the `baseUrl` of .data/dev.json locally). */
  baseUrl: string;
  apiKey?: string;
  adminKey?: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export type PlatformClient = Client<paths>;

export function createPlatformClient(options: ClientOptions): PlatformClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers['X-API-Key'] = options.apiKey;
  if (options.adminKey) headers['X-Admin-Key'] = options.adminKey;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetch = async (request: Request) => {
    try {
      return await (options.fetch ?? globalThis.fetch)(request);
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error;
      throw new UnreachableError(baseUrl, error);
    }
  };
  return createFetchClient<paths>({ baseUrl, headers, fetch });
}

type Answer = { data?: unknown; error?: unknown; response: Response };
type EnvelopeData<E> = E extends { data?: infer Inner } ? Inner : E;
/** `data` of the operation's success envelope; the empty object openapi-fetch adds for bodiless answers is left out. */
type DataOf<A> = A extends { data?: infer D } ? Exclude<EnvelopeData<Exclude<D, undefined>>, undefined> : never;

/** The error an answer stands for: the envelope's code and message, a 402's offers, or the bare status. */
export function errorOf(status: number, body: unknown, requestId: string | null): PlatformError {
  const value = body as { error?: unknown; accepts?: unknown } | undefined;
  if (status === 402 && value && Array.isArray(value.accepts)) return new PaymentRequiredError(value as never, requestId);
  const error =
    value && typeof value.error === 'object' && value.error !== null
      ? (value.error as { code?: string; message?: string; details?: Record<string, unknown> })
      : undefined;
  return new PlatformError(status, error?.code ?? `HTTP_${status}`, error?.message ?? `HTTP ${status}`, error?.details, requestId);
}

/**
 * `data` of a success envelope, typed from the operation; throws PlatformError (or PaymentRequiredError) otherwise.
 * `const me = await unwrap(client.GET('/api/sdk/v1/me'))`.
 */
export async function unwrap<A extends Answer>(answer: Promise<A> | A): Promise<DataOf<A>> {
  const { data, error, response } = await answer;
  if (error !== undefined || !response.ok) throw errorOf(response.status, error ?? data, response.headers.get('x-request-id'));
  const body = data as { data?: unknown } | undefined;
  return (body && typeof body === 'object' && 'data' in body ? body.data : body) as DataOf<A>;
}

/** How every client names a script version: its integer and, where known, its semver ("version 3 (1.0.2)"). */
export const versionLabel = (version: number | null | undefined, semver?: string | null) =>
  version === null || version === undefined ? 'no version' : `version ${version}${semver ? ` (${semver})` : ''}`;

/** A script's state in the interface's words: its status, and whether (and which version) is deployed. */
export function scriptStateLabel(script: { status: string; deploymentStatus: string; activeVersion?: number | null; activeSemver?: string | null }): string {
  const deployment = script.deploymentStatus === 'deployed' ? `deployed ${versionLabel(script.activeVersion, script.activeSemver)}` : script.deploymentStatus;
  return `${script.status}, ${deployment}`;
}
