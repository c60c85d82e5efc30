import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { replayWindowSeconds, signWebhook, verifyWebhookSignature } from '../../functions/events/webhook-signature.js';

const secret = 'whsec_test';
const body = '{"event":"payment.completed","amount":42}';
const nowMs = Date.parse('2026-03-02T12:00:00Z');
const now = Math.floor(nowMs / 1000);

const verify = (headers: Record<string, string | undefined>, rawBody = body) => () => verifyWebhookSignature({ secret, headers, rawBody, nowMs });

describe('events: webhook signatures', () => {
  it('is sha256=<hex HMAC-SHA256 of "<timestamp>.<body>"> keyed with the secret', () => {
    // Act
    const signature = signWebhook(secret, now, body);
    // Assess
    expect(signature).toBe(`sha256=${createHmac('sha256', secret).update(`${now}.${body}`).digest('hex')}`);
  });

  it('accepts a fresh, correctly signed request', () => {
    // Prepare
    const headers = { 'x-webhook-timestamp': String(now - 30), 'x-webhook-signature': signWebhook(secret, now - 30, body) };
    // Act / Assess
    expect(verify(headers)()).toBe(headers['x-webhook-signature']);
  });

  it.each([
    ['no signature', { 'x-webhook-timestamp': String(now) }],
    ['no timestamp', { 'x-webhook-signature': signWebhook(secret, now, body) }],
    ['a timestamp that is not a number', { 'x-webhook-timestamp': 'now', 'x-webhook-signature': signWebhook(secret, 'now', body) }],
    ['a signature with another secret', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook('whsec_other', now, body) }],
    ['a signature of the body alone', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` }],
    ['a replay older than five minutes', { 'x-webhook-timestamp': String(now - replayWindowSeconds - 1), 'x-webhook-signature': signWebhook(secret, now - replayWindowSeconds - 1, body) }],
    ['a timestamp five minutes ahead', { 'x-webhook-timestamp': String(now + replayWindowSeconds + 1), 'x-webhook-signature': signWebhook(secret, now + replayWindowSeconds + 1, body) }],
    ['an old signature under a fresh timestamp', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook(secret, now - 600, body) }],
    ['a truncated signature', { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook(secret, now, body).slice(0, 20) }],
  ])('refuses %s with UNAUTHORIZED', (_name, headers) => {
    // Act / Assess
    expect(verify(headers)).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 }));
  });

  it('refuses a body changed after signing', () => {
    // Prepare
    const headers = { 'x-webhook-timestamp': String(now), 'x-webhook-signature': signWebhook(secret, now, body) };
    // Act / Assess
    expect(verify(headers, body.replace('42', '4200'))).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
  });
});
