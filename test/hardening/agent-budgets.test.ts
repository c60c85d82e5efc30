// Attacks on an agent key's budget: racing paid calls to spend past the daily limit, and presenting a revoked key to
// pay without the budget its owner set. Balances and the upstream's calls prove what was paid and run.
import { beforeAll, describe, expect, it } from 'vitest';
import { createPaymentHeader, selectOffer } from '../../functions/payments/client.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import type { TestUser } from '../support/platform.js';
import { givenPayer, paymentWorld, tokenBalance } from '../support/payments.js';

const world = paymentWorld();
let agentOwner: TestUser;
let offer: PaymentRequirement;

beforeAll(async () => {
  agentOwner = await world.api.givenUser();
  offer = selectOffer((await world.api.request('GET', world.paidPath)).body);
});

const upstreamCalls = () => world.upstream.received.filter((request) => request.url.includes('/forecast')).length;

describe('hardening: agent budgets', () => {
  it('lets no race of paid calls spend past the daily limit: of 6 at once with room for 2, exactly 2 pay and run', async () => {
    // Prepare: 0.01 USD a call, a limit of 0.025 USD
    const apiKey = (await world.api.as(agentOwner.apiKey).post('/api/sdk/v1/keys', { name: 'racer', spendLimitUsd: 0.025 })).body.data.apiKey;
    const payer = await givenPayer(world.api);
    const { blockhash } = await world.connection.getLatestBlockhash();
    const headers = Array.from({ length: 6 }, () => createPaymentHeader(offer, payer, blockhash, { version: 2 }));
    const before = await tokenBalance(world.connection, offer.asset, payer.publicKey.toBase58());
    const calls = upstreamCalls();
    // Act
    const answers = await Promise.all(
      headers.map((header) => world.api.request('GET', world.paidPath, { headers: { 'payment-signature': header, 'x-api-key': apiKey } })),
    );
    // Assess
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 422, 422, 422, 422]);
    expect(answers.filter((answer) => answer.status === 422).every((answer) => answer.body.error.code === 'BUDGET_EXCEEDED')).toBe(true);
    expect(await tokenBalance(world.connection, offer.asset, payer.publicKey.toBase58())).toBe(before - 20_000n);
    expect(upstreamCalls()).toBe(calls + 2);
  });

  it('refuses a paid call presenting a revoked key: its budget cannot be shed by revoking it', async () => {
    // Prepare
    const created = (await world.api.as(agentOwner.apiKey).post('/api/sdk/v1/keys', { name: 'revoked', spendLimitUsd: 0.001 })).body.data;
    await world.api.as(agentOwner.apiKey).delete(`/api/sdk/v1/keys/${created.keyId}`);
    const payer = await givenPayer(world.api);
    const { blockhash } = await world.connection.getLatestBlockhash();
    const before = await tokenBalance(world.connection, offer.asset, payer.publicKey.toBase58());
    // Act
    const answer = await world.api.request('GET', world.paidPath, {
      headers: { 'payment-signature': createPaymentHeader(offer, payer, blockhash, { version: 2 }), 'x-api-key': created.apiKey },
    });
    // Assess
    expect([answer.status, answer.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(await tokenBalance(world.connection, offer.asset, payer.publicKey.toBase58())).toBe(before);
  });
});
