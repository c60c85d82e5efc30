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

/** An event entering the platform; functions/events turns it into SPEC.md's event object. */
export interface PlatformEventInput {
  type: string;
  source: string;
  userId: string;
  [field: string]: unknown;
}

export interface EventPublisher {
  publish(event: PlatformEventInput): Promise<{ eventId: string }>;
}
