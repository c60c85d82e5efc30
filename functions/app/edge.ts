// The HTTP kit's own ports (functions/platform/edge.ts), for the adapter of this process's mode. Every Lambda bundle
// loads this module first (lib/bundles.ts injects it), so a handler whose area needs no other adapter, such as the
// health check, loads only these; locally the platform root installs the local ones.
import { emfMetrics } from '#adapters/aws/emf-metrics.js';
import { provideEdgePorts } from '#platform/edge.js';
import type { MetricsPort, RateLimiter } from '#platform/ports.js';

/** What the local runtime provides for the edge; the rate limiter starts on first use. */
export interface LocalEdgeAdapters {
  metrics: MetricsPort;
  rateLimiter(): RateLimiter;
}

let local: LocalEdgeAdapters | undefined;

export function installLocalEdge(adapters: LocalEdgeAdapters): void {
  local = adapters;
}

function localEdge(): LocalEdgeAdapters {
  if (!local) throw new Error('local mode: no local adapters installed (bin/local.ts startPlatform, or the test setup, installs them)');
  return local;
}

export const metrics = (): MetricsPort => (process.env.PLATFORM_MODE === 'local' ? localEdge().metrics : emfMetrics);

let dynamoRateLimiter: Promise<RateLimiter> | undefined;
/** Loaded on the first counted request: functions that never count one (health, OpenAPI) do without the DynamoDB client. */
const loadRateLimiter = () => (dynamoRateLimiter ??= import('#adapters/aws/rate-limiter.js').then((module) => module.dynamoRateLimiter));
const awsRateLimiter: RateLimiter = {
  hit: async (...args) => (await loadRateLimiter()).hit(...args),
  hold: async (...args) => (await loadRateLimiter()).hold(...args),
};

export const rateLimiter = (): RateLimiter => (process.env.PLATFORM_MODE === 'local' ? localEdge().rateLimiter() : awsRateLimiter);

provideEdgePorts({ metrics, rateLimiter });
