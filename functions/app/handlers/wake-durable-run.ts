// Not an HTTP route: the Lambda target of the durable engine's bus rule. A thrown error makes EventBridge retry;
// the engine's conditional moves of a run make a repeated delivery continue nothing twice. It serves every kind of
// durable run, so it sits above the areas: script runs, and llm flows' runs whose tool call waited for approval.
import type { EventBridgeEvent } from 'aws-lambda';
import { durableWakeType } from '#functions/durable/api.js';
import { durableWakes } from '#functions/app/durable-wakes.js';

export const handler = async (event: EventBridgeEvent<string, { type?: string; executionId?: unknown; wait?: unknown; watch?: unknown }>) => {
  const { detail } = event;
  // The rule also delivers every user event type (the bus's rule shape): only the engine's own wake-ups are for it.
  if (detail.type !== durableWakeType || typeof detail.executionId !== 'string') return;
  await durableWakes()({
    executionId: detail.executionId,
    ...(typeof detail.wait === 'string' && { wait: detail.wait }),
    ...(typeof detail.watch === 'number' && { watch: detail.watch }),
  });
};
