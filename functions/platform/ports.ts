// Narrow interfaces the kernel depends on; functions/adapters/{aws,local} implement them.

export interface RateWindow {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window resets. */
  resetAt: number;
}

export interface RateLimiter {
  /** Counts one hit in the fixed window of `windowSeconds` for `bucket` and reports what is left. */
  hit(bucket: string, limit: number, windowSeconds: number, now?: number): Promise<RateWindow & { allowed: boolean }>;
  /**
   * Takes one of `limit` holds of `bucket` (the streams a key has open), or answers undefined when all are taken. The
   * hold lapses by itself after `holdMs`, so one whose process died frees itself; `release` gives it back sooner.
   */
  hold(bucket: string, limit: number, holdMs: number): Promise<{ release(): Promise<void> } | undefined>;
}

/** A call of an installed resource's method on behalf of `userId`, with that user's stored credentials. */
export interface ResourceCallRequest {
  userId: string;
  /** The resource's id, or its identifier name among the user's installations (`resources[name]` in scripts). */
  resource: string;
  method: string;
  params: Record<string, unknown>;
  /** Who is calling, recorded with the usage. */
  source: 'api' | 'script' | 'flow' | 'x402';
}

export interface ResourceCallResult {
  /** Upstream HTTP status. */
  status: number;
  success: boolean;
  data: unknown;
  /** USD charged for this call. */
  cost: number;
  durationMs: number;
}

export interface ResourceCaller {
  call(request: ResourceCallRequest): Promise<ResourceCallResult>;
}

/** An event entering the platform; functions/events turns it into the interface's event object. */
export interface PlatformEventInput {
  type: string;
  source: string;
  userId: string;
  [field: string]: unknown;
}

export interface EventPublisher {
  publish(event: PlatformEventInput): Promise<{ eventId: string }>;
}

/**
 * A recurring schedule (five-field cron, UTC). Each firing puts `event` on the platform bus, as `source`
 * `scheduler`, with `scheduledTime` (ISO 8601, the minute it is for) and, when the cron needs it, `cronFilter`
 * (see `firingIsDue` in cron.ts). Consumers subscribe to `event.type` like to any other event.
 */
export interface ScheduleDefinition {
  /** Unique among schedules: 1-64 of `0-9 a-z A-Z - _ .` (EventBridge Scheduler's rule). */
  name: string;
  cronExpression: string;
  enabled: boolean;
  event: { type: string; userId: string; detail: Record<string, unknown> };
}

/**
 * A one-time firing (EventBridge Scheduler's `at(...)`, deleted after it fires): at `at` (ISO 8601, UTC) it puts
 * `event` on the platform bus as `source` `scheduler`, like a recurring firing. Retries of flows use it.
 */
export interface OneShotDefinition {
  /** Unique among schedules, same rule as ScheduleDefinition.name. */
  name: string;
  at: string;
  event: { type: string; userId: string; detail: Record<string, unknown> };
}

/** The platform's schedules, recurring and one-time, under one namespace of names. */
export interface SchedulerPort {
  /** Creates the recurring schedule or replaces the one of the same name. */
  put(schedule: ScheduleDefinition): Promise<void>;
  /** Creates the one-time firing or replaces the pending one of the same name. */
  putOnce(once: OneShotDefinition): Promise<void>;
  /** Deletes the schedule or pending firing of that name; one that does not exist, or has fired, is not an error. */
  remove(name: string): Promise<void>;
}

/** What a CredentialVault stores: AES-256-GCM ciphertext, and the KMS-encrypted data key on AWS. Opaque to everyone else. */
export interface SealedSecret {
  v: 1;
  /** Who wraps the AES key: a KMS data key (`kms`) or the local key file (`local`). */
  kek: 'kms' | 'local';
  /** The data key, encrypted by KMS (base64); absent for `local`. */
  ek?: string;
  iv: string;
  tag: string;
  ct: string;
}

/** Encryption at rest of users' credentials. */
export interface CredentialVault {
  /** `context` binds the ciphertext to the record that holds it (AES-GCM additional data, KMS encryption context). */
  encrypt(value: Record<string, unknown>, context: string): Promise<SealedSecret>;
  decrypt(sealed: SealedSecret, context: string): Promise<Record<string, unknown>>;
}

export type MetricUnit = 'Count' | 'Milliseconds' | 'NoUnit';

/** Operational figures: CloudWatch metrics (EMF) on AWS, debug log lines locally. */
export interface MetricsPort {
  /** One data point; `dimensions` must stay of small cardinality (an operation, a status), never an id. */
  record(name: string, unit: MetricUnit, value: number, dimensions?: Record<string, string>): void;
}

/** How a run started in the background goes on: `ended` settles with it when it runs in this process. */
export interface StartedRun<R> {
  ended?: Promise<R>;
  /** False when the run could only start inside this request (its job too large to hand over): wait for `ended`, whatever the bound. */
  detached: boolean;
}

/**
 * Runs that may outlast the API's 30 s (script executions, runFlow): locally in the background of this process, on
 * AWS as an asynchronous invocation of the function itself, whose handler runs the job and records its end.
 */
export interface BackgroundRuns<J, R> {
  start(job: J): Promise<StartedRun<R>>;
}

/** The event a function invokes itself with on AWS to run a background job. */
export interface BackgroundRunEvent<J = unknown> {
  backgroundRun: J;
}

export const isBackgroundRun = (event: unknown): event is BackgroundRunEvent =>
  typeof event === 'object' &&
  event !== null &&
  typeof (event as BackgroundRunEvent).backgroundRun === 'object' &&
  (event as BackgroundRunEvent).backgroundRun !== null;

export interface UploadTarget {
  url: string;
  method: 'PUT';
  /** Headers the PUT must carry exactly, since they are part of the signature. */
  headers: Record<string, string>;
}

/** Bytes under keys (documents' originals, scripts' code and installed trees), with direct uploads. */
export interface BlobStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Undefined when nothing is stored under `key`. */
  get(key: string): Promise<Uint8Array | undefined>;
  sizeOf(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
  /** A URL the client PUTs exactly `bytes` bytes of `contentType` to, valid for `expiresInSeconds`. */
  uploadTarget(key: string, contentType: string, bytes: number, expiresInSeconds: number): Promise<UploadTarget>;
}
