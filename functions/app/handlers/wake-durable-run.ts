// Not an HTTP route: the Lambda target of the durable engine's bus rule, which also closes debounce and batch windows
// (a closed window's run starts like a continued one). A thrown error makes EventBridge retry;
// the engine's conditional moves of a run make a repeated delivery continue nothing twice. It serves every kind of
// durable run, so it sits above the areas: script runs, and llm flows' runs whose tool call waited for approval.
import type { EventBridgeEvent } from 'aws-lambda';
import { durableWakeType } from '#functions/durable/api.js';
import { durableWakes } from '#functions/app/durable-wakes.js';
import { platform } from '#functions/app/platform.js';
import { closeGatherWindow } from '#functions/app/scripts/wiring.js';
import { gatherCloseType } from '#functions/scripts/runs/gathering.js';

export const handler = async (
  event: EventBridgeEvent<string, { type?: string; executionId?: unknown; wait?: unknown; watch?: unknown; window?: unknown; userId?: unknown }>,
) => {
  const { detail } = event;
  if (detail.type === gatherCloseType && typeof detail.executionId === 'string' && typeof detail.window === 'string' && typeof detail.userId === 'string') {
    await closeGatherWindow(platform(), { executionId: detail.executionId, window: detail.window, userId: detail.userId });
    return;
  }
  // The rule also delivers every user event type (the bus's rule shape): only the engine's own wake-ups are for it.
  if (detail.type !== durableWakeType || typeof detail.executionId !== 'string') return;
  await durableWakes()({
    executionId: detail.executionId,
    ...(typeof detail.wait === 'string' && { wait: detail.wait }),
    ...(typeof detail.watch === 'number' && { watch: detail.watch }),
  });
};
