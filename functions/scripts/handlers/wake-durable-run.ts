// Not an HTTP route: the Lambda target of the durable engine's bus rule. A thrown error makes EventBridge retry;
// the engine's conditional moves of a run make a repeated delivery continue nothing twice.
import type { EventBridgeEvent } from 'aws-lambda';
import { durableWakeType } from '../durable/internal-events.js';
import { durableEngine } from '../wiring.js';

export const handler = async (event: EventBridgeEvent<string, { type?: string; executionId?: unknown; wait?: unknown; watch?: unknown }>) => {
  const { detail } = event;
  // The rule also delivers every user event type (the bus's rule shape): only the engine's own wake-ups are for it.
  if (detail.type !== durableWakeType || typeof detail.executionId !== 'string') return;
  await durableEngine().onWake({
    executionId: detail.executionId,
    ...(typeof detail.wait === 'string' && { wait: detail.wait }),
    ...(typeof detail.watch === 'number' && { watch: detail.watch }),
  });
};
