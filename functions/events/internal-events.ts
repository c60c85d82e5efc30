// Deliveries the platform puts on its own bus for the dispatcher: schedule firings and accepted webhook
// requests. Their `platform.` namespace is refused for events published by users (the kernel's event-types.ts).

/** A script schedule's firing (SchedulerPort); detail `{scheduleId}` plus `scheduledTime` and maybe `cronFilter`. */
export const scheduleFiringType = 'platform.script_schedule';

/** A verified webhook request; detail `{webhookId, deliveryId, body}`. */
export const webhookDeliveryType = 'platform.script_webhook';
export const webhookDeliverySource = 'script-webhook';
