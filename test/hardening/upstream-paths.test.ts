// Attacks on the upstream path of resource calls: a path parameter that is, or decodes to, a dot segment would move the
// call, with the owner's credentials, out of the declared method path. A real upstream on 127.0.0.1 records every
// request it gets; an API-key call and an anonymous paid call (x402, the owner's credentials) are refused for each form.
import type { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentHeader, selectOffer } from '../../functions/payments/client.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { givenPayer, paymentWorld, tokenBalance } from '../support/payments.js';
import { givenInstalled, givenPublishedResource } from '../support/resources.js';

const world = paymentWorld();
const secret = `VENDOR-SECRET-${Date.now()}`;
let resourceId: string;
let offer: PaymentRequirement;
let payer: Keypair;
const tally = { refused: 0, reachedUpstream: 0 };
afterAll(() =>
  console.log(`upstream paths: ${tally.refused} calls with dot-segment path parameters refused, requests that reached the upstream ${tally.reachedUpstream}`),
);

beforeAll(async () => {
  resourceId = await givenPublishedResource(
    world.api,
    world.owner,
    {},
    { baseUrl: `${world.upstream.baseUrl}/v1`, authentication: 'api_key', authConfig: { headerName: 'X-Vendor-Key' } },
  );
  await givenInstalled(world.api, world.owner, resourceId);
  const authenticated = await world.api
    .as(world.owner.apiKey)
    .post(`/api/sdk/v1/resources/${resourceId}/authenticate`, { type: 'api_key', credentials: { apiKey: secret } });
  expect(authenticated.status).toBe(200);
  offer = selectOffer((await world.api.request('GET', `/api/x402/resources/${resourceId}/getForecast`)).body, 'USDC');
  payer = await givenPayer(world.api);
});

const credentialed = () => world.upstream.received.filter((request) => request.headers['x-vendor-key'] === secret);
const apiKeyCall = (city: string) =>
  world.api.as(world.owner.apiKey).post(`/api/sdk/v1/resources/${resourceId}/call`, { method: 'getForecast', params: { city } });
async function paidCall(city: string) {
  const { blockhash } = await world.connection.getLatestBlockhash();
  return world.api.request('GET', `/api/x402/resources/${resourceId}/getForecast?city=${encodeURIComponent(city)}`, {
    headers: { 'x-payment': createPaymentHeader(offer, payer, blockhash) },
  });
}

const dotForms = ['.', '..', '%2e', '%2E%2e', '.%2e', '%2e%2e%2f%2e%2e', '..%2fadmin', '../admin', '%252e%252e'];

describe('hardening: path parameters cannot leave the declared upstream path', () => {
  it("delivers a plain city to /v1/forecast/{city} with the owner's credential, on both paths (the control)", async () => {
    // Prepare
    const before = credentialed().length;
    // Act
    const [byKey, paid] = [await apiKeyCall('Oslo'), await paidCall('Oslo')];
    // Assess
    expect([byKey.status, paid.status]).toEqual([200, 200]);
    expect(
      credentialed()
        .slice(before)
        .map((request) => request.url),
    ).toEqual(['/v1/forecast/Oslo', '/v1/forecast/Oslo']);
  });

  for (const city of dotForms) {
    it(`refuses the city ${city} on an API-key call and on a paid call: the upstream gets no request and the payer pays nothing`, async () => {
      // Prepare
      const [requests, payerUsdc] = [world.upstream.received.length, await tokenBalance(world.connection, offer.asset, payer.publicKey.toBase58())];
      // Act
      const [byKey, paid] = [await apiKeyCall(city), await paidCall(city)];
      // Assess
      tally.refused += [byKey, paid].filter((response) => response.status === 400).length;
      tally.reachedUpstream += world.upstream.received.length - requests;
      for (const response of [byKey, paid]) {
        expect(response.status).toBe(400);
        expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'params.city' } });
      }
      expect(world.upstream.received.length).toBe(requests);
      expect(await tokenBalance(world.connection, offer.asset, payer.publicKey.toBase58())).toBe(payerUsdc);
    });
  }
});
