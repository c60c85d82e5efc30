// The two ports the HTTP kit itself uses on every request. The kernel names no adapter: the composition provides them
// (functions/app/edge.ts, which every Lambda bundle loads first and the local runtime loads with the platform root).
import type { MetricsPort, RateLimiter } from './ports.js';

export interface EdgePorts {
  metrics(): MetricsPort;
  rateLimiter(): RateLimiter;
}

let provided: EdgePorts | undefined;

export function provideEdgePorts(ports: EdgePorts): void {
  provided = ports;
}

export function edgePorts(): EdgePorts {
  if (!provided) throw new Error('no edge ports provided: functions/app/edge.ts provides them (the bundler injects it; locally the platform root imports it)');
  return provided;
}
