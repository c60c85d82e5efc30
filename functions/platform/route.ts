import type { z } from 'zod';
import type { TableName } from './table-definition.js';
import { defaultScopes } from './scopes.js';

/** `caller`: the caller's Idempotency-Key header; `webhookDelivery`: the sender's delivery id, per receive URL. */
export type IdempotencyKind = 'caller' | 'webhookDelivery';

/** `ANY`: one function behind every method of a path (a protocol endpoint that answers each method itself, as MCP does). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';

/** `apiKey`: caller identified by the authorizer; `admin`: X-Admin-Key; `public`: anyone. */
export type AuthMode = 'apiKey' | 'admin' | 'public';

/** `write` includes read. */
export type TableAccess = 'read' | 'write';

/** Platform resources a function may touch besides tables; lib/ turns each into a least-privilege grant. */
export type Capability =
  | 'adminSecret'
  | 'credentialsKey'
  | 'eventBus'
  | 'scheduler'
  | 'documentsBucket'
  | 'pagesBucket'
  | 'scriptFunctions'
  /** Read and write versions' code and installed packages (one zip per lock hash) in the script-packages bucket. */
  | 'scriptPackages'
  /** Invoke the stack's package installer functions (npm and pip), which store installed trees themselves. */
  | 'packageInstallers'
  /** Read the key run grants of Lambda-deployed scripts are signed with (scriptFunctions brings it too). */
  | 'scriptGrantKey'
  | 'platformWallet'
  /** Read the fee-payer key that co-signs reference-client payments and pays payout fees. */
  | 'feePayer'
  /** Invoke the payout function asynchronously (an owner's owed sum crossed the threshold). */
  | 'payoutRunner'
  | 'embeddings'
  /** Read and write the S3 Vectors index of large document graphs. */
  | 'documentVectors'
  | 'llm'
  /** Invoke the stack's Python function that reads Python code for lint (the Node runtime has no python3). */
  | 'pythonLint'
  /** Invoke its own function asynchronously (background jobs such as document processing). */
  | 'selfInvoke'
  /** Start template builds (CodeBuild), read their logs, publish and remove sites in the pages bucket. */
  | 'templateBuilds';

export interface RouteSpec {
  method: HttpMethod;
  /** API Gateway path syntax: `/api/sdk/v1/keys/{keyId}`. */
  path: string;
  auth: AuthMode;
  summary: string;
  /** Longer text for the API reference when the summary does not say enough (what happens, what to call next). */
  description?: string;
  /** Shape of the 402 body of a paid route, for the OpenAPI document. */
  paymentRequired?: z.ZodType;
  /** The caller's key must hold one of these scopes (or `*`); an `apiKey` route without them gets its area's (scopes.ts). */
  scopes?: string[];
  /** Merged path parameters, query string and JSON body, validated at the edge. */
  input?: z.ZodType;
  /** `form`: the body is `application/x-www-form-urlencoded` (OAuth's token endpoint, RFC 6749); JSON otherwise. */
  body?: 'json' | 'form';
  /** Shape of `data` in the success envelope, for the OpenAPI document. */
  output?: z.ZodType;
  /** Status of a successful answer; 200 unless the operation creates something. */
  successStatus?: number;
  /** The answer is a stream of server-sent events (text/event-stream, functions/platform/event-stream.ts), not JSON. */
  eventStream?: true;
  /** Shape of `data` in a 202 answer: the work goes on after it (a run past the synchronous wait). */
  accepted?: { output: z.ZodType; description: string };
  tables?: Partial<Record<TableName, TableAccess>>;
  uses?: Capability[];
  timeoutSeconds?: number;
  memoryMb?: number;
  /**
   * Repeats answer the first answer for 24 hours and run nothing (middlewares/idempotency.ts): `caller` by the caller's
   * Idempotency-Key header, `webhookDelivery` by the sender's delivery id.
   */
  idempotency?: IdempotencyKind;
  /** Served by `npm start` only (local Solana RPC, faucet): never deployed to AWS. */
  localOnly?: boolean;
  /**
   * A protocol endpoint answers errors in its protocol's shape, not the envelope: `jsonRpc` (MCP: a JSON-RPC 2.0 error
   * object) or `oauth` (RFC 6749 / RFC 7591: `{error, error_description}`).
   */
  errorFormat?: 'jsonRpc' | 'oauth';
}

export interface Route extends RouteSpec {
  operation: string;
  area: string;
  /** Handler module, relative to the repository root; exports `handler`. */
  handler: string;
}

const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/**
 * The handler of operation `pauseFlow` in area `flows` lives in `functions/app/flows/handlers/pause-flow.ts`, or under
 * `handlers` when given (the platform's own operations live with the route table they read).
 */
export function defineRoutes<const T extends Record<string, RouteSpec>>(
  area: string,
  specs: T,
  handlers = `functions/app/${area}/handlers`,
): { [K in keyof T]: Route & T[K] } {
  const routes = {} as { [K in keyof T]: Route & T[K] };
  for (const [operation, spec] of Object.entries(specs)) {
    const scopes = spec.scopes ?? (spec.auth === 'apiKey' ? defaultScopes(area, operation, spec.method) : undefined);
    routes[operation as keyof T] = { ...spec, ...(scopes && { scopes }), operation, area, handler: `${handlers}/${kebab(operation)}.ts` } as Route & T[keyof T];
  }
  return routes;
}

/**
 * Tables a route's function may touch, as lib/ grants them on AWS and the local runtime enforces them. Every `apiKey`
 * route also counts its caller in `rateLimits`, and an idempotent route keeps its answers in `idempotencyKeys`: the
 * http middlewares (functions/platform/http.ts) do that.
 */
export function routeTables(route: {
  tables?: Partial<Record<TableName, TableAccess>>;
  auth?: AuthMode;
  idempotency?: IdempotencyKind;
}): Partial<Record<TableName, TableAccess>> {
  return {
    ...route.tables,
    ...(route.auth === 'apiKey' && { rateLimits: 'write' }),
    ...(route.idempotency && { idempotencyKeys: 'write' }),
  };
}

/** A function that is not behind an HTTP route: what lib/ needs to build it and grant it what it declares. */
export interface FunctionSpec {
  name: string;
  summary: string;
  /** Handler module, relative to the repository root. */
  handler: string;
  tables?: Partial<Record<TableName, TableAccess>>;
  uses?: readonly Capability[];
  timeoutSeconds?: number;
  memoryMb?: number;
}

/** A function behind AWS service events on the default bus (CodeBuild's state changes of template builds). */
export interface ServiceEventConsumer extends FunctionSpec {
  source: string;
  detailType: string;
}

/** A function behind a rule on the platform bus rather than an HTTP route (the trigger pipeline). */
export interface BusConsumer extends FunctionSpec {
  /** Events whose `source` starts with this reach the function. */
  sourcePrefix: string;
  /** Whether user events (every type outside `platform.`) reach it; exactly one consumer takes them. */
  userEvents: boolean;
  /** Of the platform's own `platform.` deliveries, the types it handles. */
  internalTypes: readonly string[];
  /** How many events the local runtime hands it at once, as its Lambda's concurrency would on AWS. */
  localConcurrency: number;
}
