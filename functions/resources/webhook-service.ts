// Webhook resources: the public receive URL of each installation. The HMAC-SHA256 of the raw body must match the
// header the resource names (`sha256=<hex>` or bare hex); then the event goes to the installer's event bus.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '#platform/clock.js';
import { NotFoundError, UnauthorizedError, ValidationError } from '#platform/errors.js';
import { parseBoundedJson } from '#platform/validation.js';
import type { CredentialVault, EventPublisher } from '#platform/ports.js';
import { webhookSecretContext } from './credentials.js';
import type { InstallationStore } from './installation-store.js';
import type { VersionCache } from './versions.js';

/** Where senders put the external event name when the body does not carry it. */
const eventTypeHeaders = ['x-event-type', 'x-webhook-event'];
const eventTypeFields = ['type', 'event', 'eventType'];

/** Constant-time comparison of the presented signature with the HMAC of the raw body. */
export function signatureMatches(rawBody: Buffer, secret: string, presented: string | undefined): boolean {
  const hex = presented?.trim().replace(/^sha256=/i, '') ?? '';
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  return timingSafeEqual(createHmac('sha256', secret).update(rawBody).digest(), Buffer.from(hex, 'hex'));
}

function parseBody(rawBody: Buffer): Record<string, unknown> {
  const parsed = parseBoundedJson(rawBody.toString('utf8'), 'body');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ValidationError('body', null, 'the webhook body must be a JSON object');
  return parsed as Record<string, unknown>;
}

export function createWebhookService(deps: {
  installations: InstallationStore;
  versions: VersionCache;
  vault: CredentialVault;
  publisher: EventPublisher;
  clock: Clock;
}) {
  const { installations, versions, vault, clock } = deps;
  return {
    async receive(installationId: string, headers: Record<string, string | undefined>, rawBody: Buffer) {
      const installation = await installations.getById(installationId);
      const definition = installation && (await versions.get(installation.resourceId, installation.version));
      if (!installation?.webhookSecret || definition?.resourceType !== 'webhook')
        throw new NotFoundError('installationId', installationId, 'webhook installation');
      const header = (definition.endpoint.signatureHeader ?? 'x-webhook-signature').toLowerCase();
      const { secret } = (await vault.decrypt(installation.webhookSecret, webhookSecretContext(installation))) as { secret: string };
      if (!signatureMatches(rawBody, secret, headers[header])) throw new UnauthorizedError(`the ${header} signature is missing or does not match the body`);

      const body = parseBody(rawBody);
      const fromHeader = eventTypeHeaders.map((name) => headers[name]).find(Boolean);
      const type = fromHeader ?? eventTypeFields.map((field) => body[field]).find((value): value is string => typeof value === 'string');
      const events = definition.endpoint.events ?? [];
      if (!type || !events.includes(type))
        throw new ValidationError('type', type ?? null, `the event type must be one of ${events.join(', ')} (body field type/event or header X-Event-Type)`);

      const { eventId } = await deps.publisher.publish({
        type,
        source: 'webhook',
        userId: installation.userId,
        content: { text: '', contentType: 'message' },
        data: body,
        resourceId: installation.resourceId,
        installationId,
      });
      await installations.recordCall(installation, { timestamp: clock.nowIso(), method: type, cost: 0, duration: 0, success: true });
      return { eventId, type, installationId };
    },
  };
}
