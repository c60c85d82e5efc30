// Script webhooks and schedules. A webhook request is verified
// here and handed to the dispatcher through the bus; a schedule is a SchedulerPort schedule whose firings
// reach the dispatcher the same way.
import type { Clock } from '#platform/clock.js';
import { parseCron } from '#platform/cron.js';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import { parseBoundedJson } from '#platform/validation.js';
import type { CredentialVault, EventPublisher, SchedulerPort } from '#platform/ports.js';
import { scheduleFiringType, webhookDeliverySource, webhookDeliveryType } from './internal-events.js';
import type { ScheduleRecord, ScriptPort } from './ports.js';
import { requireOwnScript } from './subscription-service.js';
import type { TriggerStore } from './trigger-store.js';
import { verifyWebhookSignature } from './webhook-signature.js';

/** A webhook body travels to the dispatcher as one bus event; EventBridge takes 256 KB per entry. */
const maxWebhookBodyBytes = 200 * 1024;
/** Schedule data is stored with the schedule and handed to every run. */
const maxScheduleDataBytes = 64 * 1024;

const secretContext = (webhookId: string) => `webhook:${webhookId}`;
const scheduleName = (scheduleId: string) => `script-${scheduleId}`;

export interface TriggerDeps {
  store: TriggerStore;
  scripts: ScriptPort;
  vault: CredentialVault;
  publisher: EventPublisher;
  scheduler: SchedulerPort;
  clock: Clock;
}

export function createTriggerService(deps: TriggerDeps) {
  const { store, scripts, vault, clock } = deps;
  return {
    async createWebhook(caller: Caller, input: { scriptId: string; name: string; enabled: boolean }, baseUrl: string) {
      await requireOwnScript(scripts, caller, input.scriptId);
      const webhookId = newId('whk');
      const webhookSecret = newSecret('whsec');
      const secret = await vault.encrypt({ webhookSecret }, secretContext(webhookId));
      await store.putWebhook({
        webhookId,
        scriptId: input.scriptId,
        userId: caller.userId,
        name: input.name,
        enabled: input.enabled,
        createdAt: clock.nowIso(),
        secret,
      });
      return { scriptId: input.scriptId, webhookUrl: `${baseUrl}/api/webhooks/${webhookId}`, webhookSecret, name: input.name, enabled: input.enabled };
    },

    /** Verifies a request to a webhook URL and queues its run; nothing runs unless the signature is good. */
    async receiveWebhook(input: { webhookId: string; headers: Record<string, string | undefined>; rawBody: string }) {
      const size = Buffer.byteLength(input.rawBody);
      if (size > maxWebhookBodyBytes) throw new PayloadTooLargeError(size, maxWebhookBodyBytes);
      const webhook = await store.getStoredWebhook(input.webhookId);
      if (!webhook) throw new NotFoundError('webhookId', input.webhookId, 'webhook');
      const { webhookSecret } = await vault.decrypt(webhook.secret, secretContext(webhook.webhookId));
      const signature = verifyWebhookSignature({ secret: String(webhookSecret), headers: input.headers, rawBody: input.rawBody, nowMs: clock.now() });
      if (!webhook.enabled) throw new ConflictError(`webhook ${webhook.webhookId} is disabled`, { webhookId: webhook.webhookId });
      // The same signed request sent twice is one delivery: the ledger runs it once.
      const deliveryId = `${webhook.webhookId}#${sha256Hex(signature).slice(0, 32)}`;
      const body: unknown = input.rawBody.trim() ? parseBoundedJson(input.rawBody, 'body') : {};
      await deps.publisher.publish({
        type: webhookDeliveryType,
        source: webhookDeliverySource,
        userId: webhook.userId,
        webhookId: webhook.webhookId,
        deliveryId,
        body,
      });
      return { deliveryId };
    },

    async createSchedule(caller: Caller, input: { scriptId: string; name: string; cronExpression: string; enabled: boolean; data: Record<string, unknown> }) {
      const cron = parseCron(input.cronExpression, 'cronExpression');
      const dataBytes = Buffer.byteLength(JSON.stringify(input.data));
      if (dataBytes > maxScheduleDataBytes) throw new ValidationError('data', dataBytes, `data has at most ${maxScheduleDataBytes} bytes of JSON`);
      await requireOwnScript(scripts, caller, input.scriptId);
      const schedule: ScheduleRecord = {
        scheduleId: newId('sch'),
        scriptId: input.scriptId,
        userId: caller.userId,
        name: input.name,
        cronExpression: cron.expression,
        enabled: input.enabled,
        data: input.data,
        createdAt: clock.nowIso(),
      };
      await store.putSchedule(schedule);
      try {
        await deps.scheduler.put({
          name: scheduleName(schedule.scheduleId),
          cronExpression: schedule.cronExpression,
          enabled: schedule.enabled,
          event: { type: scheduleFiringType, userId: schedule.userId, detail: { scheduleId: schedule.scheduleId } },
        });
      } catch (error) {
        await store.deleteSchedule(schedule.scheduleId);
        throw error;
      }
      const { scheduleId, scriptId, name, cronExpression, enabled } = schedule;
      return { scheduleId, scriptId, name, cronExpression, enabled };
    },
  };
}

/** Removes a schedule's firings, then its record: a record is never left without the firings that need it. */
export async function retireSchedule(deps: Pick<TriggerDeps, 'store' | 'scheduler'>, scheduleId: string): Promise<void> {
  await deps.scheduler.remove(scheduleName(scheduleId));
  await deps.store.deleteSchedule(scheduleId);
}

export type TriggerService = ReturnType<typeof createTriggerService>;
