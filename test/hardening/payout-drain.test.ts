// Many small payees against the fee payer, on the embedded bank: a payout that creates an owner's token account puts
// up its rent (about 0.002 SOL, 0.3 USD), far more than a tiny payment leaves the platform. A payout run must never
// leave the platform worse off: what it owes less what it holds, less what the fee payer spent, may not go down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Seller, givenSeller, lamportBalance, localPayoutCost, paidCalls, runPayouts, solanaConnection, tokenBalance } from '../support/payments.js';
import { type TestApi, startTestPlatform } from '../support/platform.js';
import { type Upstream, json, startUpstream } from '../support/resources.js';

let api: TestApi;
let upstream: Upstream;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform({ ownTables: true }), startUpstream()]);
  upstream.respond((_request, response) => json(response, 200, { forecast: 'sunny' }));
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

/** The platform's position in micro-USDC: USDC it holds, less what it still owes these sellers, less the fee payer's SOL it spent. */
async function position(sellers: Seller[], feePayerStart: bigint) {
  const connection = solanaConnection(api);
  const [offer] = (await api.request('GET', sellers[0]!.path)).body.accepts;
  const held = await tokenBalance(connection, offer.asset, offer.payTo);
  let owes = 0n;
  for (const seller of sellers) {
    const { balances } = (await api.as(seller.user.apiKey).get('/api/sdk/v1/payments/payouts')).body.data;
    for (const balance of balances as Array<{ owed: string; inFlight: string }>) owes += BigInt(balance.owed) + BigInt(balance.inFlight);
  }
  const spent = feePayerStart - (await lamportBalance(connection, offer.extra.feePayer));
  return { held, owes, spent, net: held - owes - localPayoutCost(spent) };
}

describe('payouts: many small payees', () => {
  it('a payout run costs the fee payer no more than the platform keeps, however many tiny payees it has', async () => {
    // Prepare: five owners paid one 0.01 USDC call each (9,000 owed, no token account), one paid a 0.5 USDC call
    const tiny = [];
    for (let index = 0; index < 5; index++) tiny.push(await givenSeller(api, upstream, 0.01));
    const larger = await givenSeller(api, upstream, 0.5);
    for (const seller of [...tiny, larger]) await paidCalls(api, seller, 1);
    const sellers = [...tiny, larger];
    const [offer] = (await api.request('GET', larger.path)).body.accepts;
    const feePayerStart = await lamportBalance(solanaConnection(api), offer.extra.feePayer);
    const before = await position(sellers, feePayerStart);
    // Act
    const run = await runPayouts(api);
    // Assess
    const after = await position(sellers, feePayerStart);
    const ids = (list: Array<{ ownerId: string }>) => list.map((entry) => entry.ownerId).sort();
    expect(
      after.net,
      JSON.stringify({ before, after }, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
    ).toBeGreaterThanOrEqual(before.net);
    // The tiny balances wait until they cover their payout; the larger one is paid, its cost taken from it.
    expect(ids(run.deferred)).toEqual(ids(tiny.map((seller) => ({ ownerId: seller.user.userId }))));
    expect(run.paid.map((payout: { ownerId: string }) => payout.ownerId)).toEqual([larger.user.userId]);
    expect(after.owes).toBe(5n * 9_000n);
  });
});
