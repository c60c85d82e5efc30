// The trigger pipeline as deployed: the events area's pipeline with the target kinds the platform registers
// (subscriptions run scripts, event flows run flows, event waits resume durable runs). A new kind of target is one more entry in the list; the
// events area never imports the areas whose targets it delivers to.
import { eventWaitTarget, subscriptionTarget, triggerPipelineOf } from '#functions/app/events/pipeline.js';
import type { TriggerPipeline } from '#functions/events/trigger-pipeline.js';
import { flowEventTarget } from '#functions/app/flows/wiring.js';
import { perPlatform } from './platform.js';

/** Shared by the AWS Lambda targets and the local bus rules. */
export const triggerPipeline = perPlatform(
  (platform): TriggerPipeline => triggerPipelineOf(platform, [subscriptionTarget(platform), flowEventTarget(platform), eventWaitTarget(platform)]),
);
