import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { replayWindowSeconds, signWebhook, verifyWebhookSignature } from '../../functions/events/webhook-signature.js';

const secret = 'whsec_test';
const body = '{"event":"payment.completed","amount":42}';
const nowMs = Date.parse('2026-03-02T12:00:00Z');
const now = Math.floor(nowMs / 1000);

const verify =
  (headers: Record<string, string | undefined>, rawBody = body) =>
  () =>
    verifyWebhookSignature({ secret, headers, rawBody, nowMs });

describe('events: webhook signatures', () => {
  it('is sha256=<hex HMAC-SHA256 of the raw body> keyed with the secret, or of "<timestamp>.<body>" with a timestamp', () => {
    // Act
    const [bodyOnly, timestamped] = [signWebhook(secret, body), signWebhook(secret, body, now)];
    // Assess
    expect(bodyOnly).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    expect(timestamped).toBe(`sha256=${createHmac('sha256', secret).update(`${now}.${body}`).digest('hex')}`);
  });

  it("accepts the design's signature of the raw body, without a timestamp", () => {
    // Prepare
    const headers = { 'x-webhook-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
    // Act / Assess
    expect(verify(headers)()).toBe(headers['x-webhook-signature']);
  });

  it('accepts a fresh, correctly signed timestamped request', () => {
    // Prepare
    const headers = { 'x-webhook-timestamp': String(now - 30), 'x-webhook-signature': signWebhook(secret, body, now - 30) };
    // Act / Assess
    expect(verify(headers)()).toBe(headers['x-webhook-signature']);
  });

  it.each([
    ['no signature', { 'x-webhook-timestamp': String(now) }],
    ['a timestamped signature without its timestamp', { 'x-webhook-signature': signWebhook(secret, body, now) }],
    ['a body signature with another secret', { 'x-webhook-signature': signWebhook('whsec_other', body) }],
    ['a timestamp that is not a number', { 'x-webhook-timestamp': 'now', 'x-webhook-signature': signWebhook(secret, body, 'now') }],
    ['a signature with another secret', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook('whsec_other', body, now) }],
    [
      'a signature of the body alone under a timestamp it does not cover',
      { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook(secret, body) },
    ],
    [
      'a replay older than five minutes',
      { 'x-webhook-timestamp': String(now - replayWindowSeconds - 1), 'x-webhook-signature': signWebhook(secret, body, now - replayWindowSeconds - 1) },
    ],
    [
      'a timestamp five minutes ahead',
      { 'x-webhook-timestamp': String(now + replayWindowSeconds + 1), 'x-webhook-signature': signWebhook(secret, body, now + replayWindowSeconds + 1) },
    ],
    ['an old signature under a fresh timestamp', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook(secret, body, now - 600) }],
    ['a truncated signature', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook(secret, body, now).slice(0, 20) }],
  ])('refuses %s with UNAUTHORIZED', (_name, headers) => {
    // Act / Assess
    expect(verify(headers)).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 }));
  });

  it.each([
    ['with', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook(secret, body, now) }],
    ['without', { 'x-webhook-signature': signWebhook(secret, body) }],
  ])('refuses a body changed after signing, %s a timestamp', (_name, headers) => {
    // Act / Assess
    expect(verify(headers, body.replace('42', '4200'))).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
  });
});
