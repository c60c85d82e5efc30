// Webhook request signing. the design's form: `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>`; the
// same signed request sent again is one delivery (the ledger keys it by its signature). A sender that also wants
// replays refused after five minutes adds `X-Webhook-Timestamp` and signs `<timestamp>.<body>`, as Stripe and Slack
// do, so an old request cannot be replayed under a fresh timestamp.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '#platform/errors.js';

export const signatureHeader = 'x-webhook-signature';
export const timestampHeader = 'x-webhook-timestamp';
export const replayWindowSeconds = 300;

/** `sha256=<hex HMAC-SHA256>` of the raw body, or of `<timestamp>.<rawBody>` when a timestamp is given. */
export function signWebhook(secret: string, rawBody: string, timestamp?: number | string): string {
  const signed = timestamp === undefined ? rawBody : `${timestamp}.${rawBody}`;
  return `sha256=${createHmac('sha256', secret).update(signed).digest('hex')}`;
}

/** Throws UNAUTHORIZED unless the signature is the body's (and, with a timestamp header, a fresh timestamp's too). */
export function verifyWebhookSignature(input: { secret: string; headers: Record<string, string | undefined>; rawBody: string; nowMs: number }): string {
  const signature = input.headers[signatureHeader]?.trim();
  const timestampText = input.headers[timestampHeader];
  if (!signature) throw new UnauthorizedError(`missing ${signatureHeader} header (sha256=<hex HMAC-SHA256 of the raw body with the webhook secret>)`);
  if (timestampText !== undefined) {
    if (!/^\d{1,12}$/.test(timestampText)) throw new UnauthorizedError(`malformed ${timestampHeader} header (Unix time in seconds)`);
    const age = input.nowMs / 1000 - Number(timestampText);
    if (Math.abs(age) > replayWindowSeconds)
      throw new UnauthorizedError(
        `${timestampHeader} is more than ${replayWindowSeconds} seconds from the server's time; the request is refused as a possible replay`,
      );
  }
  const expected = Buffer.from(signWebhook(input.secret, input.rawBody, timestampText));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new UnauthorizedError(
      timestampText === undefined ? 'webhook signature does not match the body' : `webhook signature does not match "<${timestampHeader}>.<body>"`,
    );
  }
  return signature;
}
