// Webhook request signing. The signature covers the timestamp and the raw body together
// (`<timestamp>.<body>`, as Stripe and Slack do), so an old request cannot be replayed with a fresh
// timestamp; requests older (or newer) than five minutes are refused.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '#platform/errors.js';

export const signatureHeader = 'x-webhook-signature';
export const timestampHeader = 'x-webhook-timestamp';
export const replayWindowSeconds = 300;

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<rawBody>" keyed with the webhook secret>` (DESIGN.md's header format). */
export function signWebhook(secret: string, timestamp: number | string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** Throws UNAUTHORIZED unless the headers carry a fresh timestamp and the signature of it and the body. */
export function verifyWebhookSignature(input: { secret: string; headers: Record<string, string | undefined>; rawBody: string; nowMs: number }): string {
  const signature = input.headers[signatureHeader];
  const timestampText = input.headers[timestampHeader];
  if (!signature) throw new UnauthorizedError(`missing ${signatureHeader} header (sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">)`);
  if (!timestampText || !/^\d{1,12}$/.test(timestampText)) throw new UnauthorizedError(`missing or malformed ${timestampHeader} header (Unix time in seconds)`);
  const age = input.nowMs / 1000 - Number(timestampText);
  if (Math.abs(age) > replayWindowSeconds) throw new UnauthorizedError(`${timestampHeader} is more than ${replayWindowSeconds} seconds from the server's time; the request is refused as a possible replay`);
  const expected = Buffer.from(signWebhook(input.secret, timestampText, input.rawBody));
  const given = Buffer.from(signature.trim());
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new UnauthorizedError('webhook signature does not match');
  return signature.trim();
}
