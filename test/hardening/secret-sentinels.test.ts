// Secrets reach only where they belong: a resource credential, OAuth client secret and tokens, webhook secrets, script
// and user keys, and the platform's wallet, fee-payer and mint keys, each a sentinel searched in every response (but
// the one answer that hands a secret to its owner), every log line and every stored item.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentHeader, selectOffer } from '../../functions/payments/client.js';
import { signWebhook } from '../../functions/events/webhook-signature.js';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenPayer, solanaConnection } from '../support/payments.js';
import { type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
import { givenDeployed, rest } from '../support/scripts.js';
import { capturingLogs, everyStoredItem } from '../support/sentinels.js';

let api: TestApi;
/** The vendor API, its OAuth provider (/token) and a paid API at once; it never echoes what it receives. */
let upstream: Upstream;
let publisher: TestUser;
let user: TestUser;
const mark = (what: string) => `SENTINEL-${what}-${Math.random().toString(36).slice(2, 10)}`;
const secrets = { credential: mark('credential'), clientSecret: mark('client-secret'), accessToken: mark('access-token'), refreshToken: mark('refresh-token') };

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  [publisher, user] = await Promise.all([api.givenUser({ walletAddress: Keypair.generate().publicKey.toBase58() }), api.givenUser()]);
  upstream.respond((request, response) =>
    request.url === '/token'
      ? json(response, 200, { access_token: secrets.accessToken, refresh_token: secrets.refreshToken, expires_in: 3600, token_type: 'Bearer' })
      : json(response, 200, { ok: true, path: request.url }),
  );
}, 120_000);
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

/** Each way a Solana secret key could be written: solana-keygen's JSON array, base58, base64, hex. */
function keyForms(file: string): string[] {
  const secretKey = Uint8Array.from(JSON.parse(readFileSync(join(process.env.DATA_DIR!, file), 'utf8')) as number[]);
  return [JSON.stringify(Array.from(secretKey)), bs58.encode(secretKey), Buffer.from(secretKey).toString('base64'), Buffer.from(secretKey).toString('hex')];
}

describe('hardening: secret sentinels', () => {
  it('finds no secret in any response but its own handover, in any log line or in any stored item', async () => {
    // Prepare
    const answers: Array<{ label: string; response: ApiResponse; hands?: string }> = [];
    const seen = (label: string, response: ApiResponse, hands?: string) => {
      answers.push({ label, response, hands });
      return response;
    };
    const as = api.as(user.apiKey);
    const resources = '/api/sdk/v1/resources';
    // Act
    const { logs } = await capturingLogs(async () => {
      const keyed = await givenPublishedResource(
        api,
        publisher,
        {},
        { baseUrl: upstream.baseUrl, authentication: 'api_key', authConfig: { headerName: 'X-Vendor-Key' } },
      );
      const keyedName = (await as.get(`${resources}/${keyed}`)).body.data.name as string;
      await givenInstalled(api, user, keyed);
      seen('authenticate', await as.post(`${resources}/${keyed}/authenticate`, { type: 'api_key', credentials: { apiKey: secrets.credential } }));
      seen('resource call', await as.post(`${resources}/${keyed}/call`, { method: 'getForecast', params: { city: 'Oslo' } }));

      const oauth = await givenPublishedResource(
        api,
        publisher,
        {},
        {
          baseUrl: `${upstream.baseUrl}/v1`,
          authentication: 'oauth2',
          authConfig: { authUrl: `${upstream.baseUrl}/authorize`, tokenUrl: `${upstream.baseUrl}/token`, scopes: ['read'] },
        },
      );
      await givenInstalled(api, user, oauth);
      const started = seen(
        'oauth authenticate',
        await as.post(`${resources}/${oauth}/authenticate`, { type: 'oauth2', credentials: { clientId: 'client-1', clientSecret: secrets.clientSecret } }),
      );
      const callback = new URL(new URL(started.body.data.authorizationUrl).searchParams.get('redirect_uri')!);
      callback.searchParams.set('code', 'code-1');
      callback.searchParams.set('state', started.body.data.state);
      seen('oauth callback', await api.request('GET', `${callback.pathname}${callback.search}`));
      seen('oauth call', await as.post(`${resources}/${oauth}/call`, { method: 'getForecast', params: { city: 'Oslo' } }));

      const hook = await givenPublishedResource(
        api,
        publisher,
        { resourceType: 'webhook' },
        {
          authentication: 'signature',
          callbackUrl: 'https://payments.example.com/hooks',
          events: ['payment.completed'],
          signatureHeader: 'X-Pay-Signature',
          methods: [],
        },
      );
      const hookInstall = seen('webhook install', await as.post(`${resources}/${hook}/install`), 'webhookSecret').body.data;
      const hookBody = JSON.stringify({ type: 'payment.completed', amount: 3 });
      seen(
        'resource webhook',
        await api.request('POST', new URL(hookInstall.webhookUrl).pathname, {
          rawBody: hookBody,
          headers: { 'content-type': 'application/json', 'x-pay-signature': createHmac('sha256', hookInstall.webhookSecret).update(hookBody).digest('hex') },
        }),
      );

      const script = await givenDeployed(api, user, {
        config: { allowedResources: [keyedName] },
        code: `export async function handler(event) { console.log('calling'); return await resources['${keyedName}'].getForecast({ city: 'Lima' }); }`,
      });
      seen('script run by its key', await api.as(script.apiKey).post(`${rest}/${script.id}/execute`, { data: {} }));
      const scriptHook = seen('script webhook', await as.post('/api/sdk/v1/scripts/createWebhook', { scriptId: script.id, name: 'hook' }), 'webhookSecret').body
        .data;
      const scriptBody = JSON.stringify({ hello: 'world' });
      const timestamp = Math.floor(Date.now() / 1000);
      seen(
        'script webhook delivery',
        await api.request('POST', new URL(scriptHook.webhookUrl).pathname, {
          rawBody: scriptBody,
          headers: {
            'content-type': 'application/json',
            'x-webhook-timestamp': String(timestamp),
            'x-webhook-signature': signWebhook(scriptHook.webhookSecret, scriptBody, timestamp),
          },
        }),
      );
      const issued = seen('key issued', await as.post('/api/sdk/v1/keys', { name: 'spare' }), 'apiKey').body.data;

      const priced = await givenPublishedResource(
        api,
        publisher,
        { pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' } },
        { baseUrl: `${upstream.baseUrl}/v1` },
      );
      const paidPath = `/api/x402/resources/${priced}/getForecast?city=Oslo`;
      const offer = selectOffer({ accepts: seen('x402 offer', await api.request('GET', paidPath)).body.accepts }, 'USDC');
      const payer = await givenPayer(api);
      const blockhash = (await solanaConnection(api).getLatestBlockhash()).blockhash;
      seen('x402 paid call', await api.request('GET', paidPath, { headers: { 'X-PAYMENT': createPaymentHeader(offer, payer, blockhash) } }));

      for (const [label, path] of [
        ['resource', `${resources}/${keyed}`],
        ['oauth resource', `${resources}/${oauth}`],
        ['installations', `${resources}/installations?limit=100`],
        ['usage', `${resources}/installations/${hookInstall.installationId}/usage`],
        ['script', `${rest}/${script.id}`],
        ['executions', `/api/sdk/v1/executions?scriptId=${script.id}`],
        ['keys', '/api/sdk/v1/keys?limit=100'],
        ['me', '/api/sdk/v1/me'],
        ['payments', '/api/sdk/v1/payments'],
      ])
        seen(label!, await as.get(path!));
      seen('publisher metrics', await api.as(publisher.apiKey).get(`${resources}/${keyed}/metrics`));
      seen('x402 supported', await api.request('GET', '/api/x402/supported'));
      return { issued, hookInstall, scriptHook, script };
    }).then(async (captured) => {
      const { issued, hookInstall, scriptHook, script } = captured.result;
      Object.assign(secrets, {
        resourceWebhook: hookInstall.webhookSecret,
        scriptWebhook: scriptHook.webhookSecret,
        scriptKey: script.apiKey,
        issuedKey: issued.apiKey,
        userKey: user.apiKey,
      });
      return captured;
    });
    const stored = await everyStoredItem();
    const platformKeys = ['fee-payer.json', 'platform-wallet.json', 'usdc-mint-authority.json'].flatMap((file) =>
      keyForms(file).map((form, index) => [`${file}#${index}`, form] as const),
    );
    const sentinels: Array<readonly [string, string]> = [...Object.entries(secrets), ...platformKeys];
    const hits: string[] = [];
    for (const [name, value] of sentinels) {
      for (const { label, response, hands } of answers) {
        const handedOver = hands !== undefined && response.body?.data?.[hands] === value;
        const text = handedOver ? JSON.stringify({ ...response.body, data: { ...response.body.data, [hands]: undefined } }) : response.text;
        if (text.includes(value) || [...response.headers.values()].some((header) => header.includes(value))) hits.push(`${name} in the answer to ${label}`);
      }
      if (logs.includes(value)) hits.push(`${name} in the logs`);
      if (stored.includes(value)) hits.push(`${name} in a stored item`);
    }
    console.log(
      `secret sentinels: ${sentinels.length} secrets × ${answers.length} responses, ${logs.split('\n').length} log lines, every stored item; sentinel hits ${hits.length}`,
    );
    // Assess
    expect(upstream.received.some((request) => request.headers['x-vendor-key'] === secrets.credential)).toBe(true);
    expect(upstream.received.some((request) => request.headers.authorization === `Bearer ${secrets.accessToken}`)).toBe(true);
    expect(answers.filter(({ response }) => response.status >= 500).map(({ label, response }) => `${label}: ${response.status}`)).toEqual([]);
    const answer = (label: string) => answers.find((entry) => entry.label === label)!.response;
    expect([answer('x402 paid call').status, answer('resource webhook').status, answer('script webhook delivery').status]).toEqual([200, 200, 202]);
    expect(answer('script run by its key').body.data.result).toEqual({ ok: true, path: '/forecast/Lima' });
    expect(logs).toContain('resource call');
    expect(hits).toEqual([]);
  }, 300_000);
});
