// A credential given to authenticate must reach the upstream and nothing else: no response, log line or stored record.
import { ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoClient } from '../../functions/adapters/local/dynamodb.js';
import { logger } from '../../functions/platform/logger.js';
import { resourceCaller } from '../../functions/resources/wiring.js';
import { givenInstalled, givenPublishedResource, json, resourceWorld } from '../support/resources.js';

const world = resourceWorld();

/** Everything written to stdout and stderr while `run` runs, with the platform logging at DEBUG. */
async function capturingLogs<T>(run: () => Promise<T>): Promise<{ result: T; logs: string }> {
  const chunks: string[] = [];
  const original = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  const tap = (write: typeof process.stdout.write) => ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  process.stdout.write = tap(original.out);
  process.stderr.write = tap(original.err);
  logger.setLogLevel('DEBUG');
  try {
    return { result: await run(), logs: chunks.join('') };
  } finally {
    logger.setLogLevel('ERROR');
    process.stdout.write = original.out;
    process.stderr.write = original.err;
  }
}

async function everyStoredItem(): Promise<string> {
  const client = dynamoClient(process.env.DYNAMODB_ENDPOINT!);
  const { TableNames = [] } = await client.send(new ListTablesCommand({}));
  const dumps = await Promise.all(TableNames.map(async (TableName) => JSON.stringify((await client.send(new ScanCommand({ TableName }))).Items ?? [])));
  client.destroy();
  return dumps.join('\n');
}

describe('resources: credentials never leak', () => {
  it('keeps a sentinel secret out of every response, log line and stored record, while the upstream receives it', async () => {
    // Prepare
    const sentinel = `SENTINEL-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const resourceId = await givenPublishedResource(world.api, world.owner, {}, { baseUrl: world.upstream.baseUrl, authentication: 'api_key', authConfig: { headerName: 'X-Vendor-Key' } });
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
      const viaPort = await resourceCaller().call({ userId: world.user.userId, resource: resourceId, method: 'getForecast', params: { city: 'Oslo' }, source: 'script' }).catch((error: Error) => error);
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
