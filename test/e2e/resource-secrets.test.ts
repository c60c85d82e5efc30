// A credential given to authenticate must reach the upstream and nothing else: no response, log line or stored record.
import { describe, expect, it } from 'vitest';
import { resourcesApi } from '../../functions/app/resources/wiring.js';
import { givenInstalled, givenPublishedResource, json, resourceWorld } from '../support/resources.js';
import { capturingLogs, everyStoredItem } from '../support/sentinels.js';

const world = resourceWorld();

describe('resources: credentials never leak', () => {
  it('keeps a sentinel secret out of every response, log line and stored record, while the upstream receives it', async () => {
    // Prepare
    const sentinel = `SENTINEL-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const resourceId = await givenPublishedResource(
      world.api,
      world.owner,
      {},
      { baseUrl: world.upstream.baseUrl, authentication: 'api_key', authConfig: { headerName: 'X-Vendor-Key' } },
    );
    const installation = await givenInstalled(world.api, world.user, resourceId);
    const base = `/api/sdk/v1/resources/${resourceId}`;
    const as = world.api.as(world.user.apiKey);
    // Act
    const { result: responses, logs } = await capturingLogs(async () => {
      const answers = [
        await as.post(`${base}/authenticate`, { type: 'api_key', credentials: { apiKey: sentinel } }),
        await as.post(`${base}/authenticate`, { type: 'api_key', credentials: { apiKey: sentinel, extra: sentinel } }),
        await as.post(`${base}/authenticate`, { type: 'api_key', credentials: { apiKey: sentinel } }),
        await as.post(`${base}/call`, { method: 'getForecast', params: { city: 'Oslo' } }),
      ];
      world.upstream.respond((_request, response) => json(response, 500, { error: 'boom' }));
      answers.push(await as.post(`${base}/call`, { method: 'getForecast', params: { city: 'Oslo' } }));
      await world.upstream.close();
      answers.push(await as.post(`${base}/call`, { method: 'getForecast', params: { city: 'Oslo' } }));
      const viaPort = await resourcesApi()
        .caller.call({ userId: world.user.userId, resource: resourceId, method: 'getForecast', params: { city: 'Oslo' }, source: 'script' })
        .catch((error: Error) => error);
      answers.push(
        await as.get(base),
        await as.get('/api/sdk/v1/resources/installations?limit=100'),
        await as.get(`/api/sdk/v1/resources/installations/${installation.installationId}/usage`),
        await world.api.as(world.owner.apiKey).get(`${base}/metrics`),
        await as.get('/api/sdk/v1/resources/marketplace?limit=100'),
      );
      return { answers, viaPort: JSON.stringify(viaPort, Object.getOwnPropertyNames(viaPort)) };
    });
    const stored = await everyStoredItem();
    // Assess
    expect(world.upstream.received.some((request) => request.headers['x-vendor-key'] === sentinel)).toBe(true);
    expect(responses.answers[3]!.body.data).toMatchObject({ success: true });
    expect(responses.answers[5]!.status).toBe(502);
    for (const answer of responses.answers) expect(answer.text).not.toContain(sentinel);
    expect(responses.viaPort).not.toContain(sentinel);
    expect(logs).toContain('resource call');
    expect(logs).not.toContain(sentinel);
    expect(stored).toContain(installation.installationId);
    expect(stored).not.toContain(sentinel);
  });
});
