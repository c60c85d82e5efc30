// The events area's subscriptions, schedules and webhooks: what makes a script run. The scripts area is reached through
// the lazy ScriptPort, so these handlers load the scripts' composition only when a call asks about a script.
import { perPlatform } from '#functions/app/platform.js';
import { type SubscriptionService, createSubscriptionService } from '#functions/events/subscription-service.js';
import { createSubscriptionStore } from '#functions/events/subscription-store.js';
import { type TriggerService, createTriggerService } from '#functions/events/trigger-service.js';
import { createTriggerStore } from '#functions/events/trigger-store.js';
import { scriptPort } from './script-port.js';

export const subscriptionService = perPlatform(
  (platform): SubscriptionService => createSubscriptionService({ store: createSubscriptionStore(), scripts: scriptPort(platform), clock: platform.clock }),
);

export const triggerService = perPlatform(
  (platform): TriggerService =>
    createTriggerService({
      store: createTriggerStore(),
      scripts: scriptPort(platform),
      vault: platform.credentialVault,
      publisher: platform.eventBus,
      scheduler: platform.scheduler,
      clock: platform.clock,
    }),
);
