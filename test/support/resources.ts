// Resources for tests: valid inputs, a real local upstream that records what it received, and shortcuts to a
// published and installed resource.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type TestApi, type TestUser, reconfigurePlatform, startTestPlatform } from './platform.js';

export const openApiDoc = {
  openapi: '3.0.3',
  info: { title: 'Weather', version: '1.0.0' },
  paths: {
    '/forecast/{city}': {
      get: {
        parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'the forecast' } },
      },
    },
  },
};

export function resourceInput(overrides: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}) {
  return {
    name: `weather-${Math.random().toString(36).slice(2, 8)}`,
    description: 'Forecasts by city',
    resourceType: 'api',
    category: 'data',
    tags: ['weather', 'forecast'],
    openApiSpec: openApiDoc,
    pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' },
    ...overrides,
    endpoint: {
      baseUrl: 'http://127.0.0.1:9/v1',
      authentication: 'none',
      methods: [
        {
          name: 'getForecast',
          httpMethod: 'GET',
          path: '/forecast/{city}',
          parameters: { city: { type: 'string', required: true }, days: { type: 'integer', required: false } },
        },
        {
          name: 'report',
          method: 'post',
          path: '/reports',
          parameters: [
            { name: 'text', type: 'string', required: true },
            { name: 'tags', type: 'string[]' },
          ],
          cost: 0.05,
        },
      ],
      ...endpoint,
    },
  };
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Upstream {
  baseUrl: string;
  received: ReceivedRequest[];
  /** Replaces how the upstream answers. */
  respond(handler: (request: ReceivedRequest, response: ServerResponse) => void): void;
  close(): Promise<void>;
}

export const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

/** The last path segment of a call: the `city` of `/forecast/<city>`, where tests of held runs send a run's key. */
export const lastSegmentOf = (request: ReceivedRequest) => decodeURIComponent(new URL(request.url, 'http://upstream').pathname.split('/').at(-1) ?? '');

/** A call the upstream holds, by its last path segment, with the answer still to give. */
export interface HeldCall {
  key: string;
  response: ServerResponse;
}

/**
 * Calls the upstream holds until the test answers them, so that runs wait inside their handlers: `hold` holds every
 * call (or those whose key `which` picks, answering the others), `answerAll` answers what is held and every call after.
 */
export function heldCalls(upstream: Upstream) {
  const held: HeldCall[] = [];
  const answer = (response: ServerResponse) => json(response, 200, { ok: true });
  return {
    held,
    hold(which: (key: string) => boolean = () => true) {
      upstream.respond((request, response) => {
        const key = lastSegmentOf(request);
        if (which(key)) held.push({ key, response });
        else answer(response);
      });
    },
    answerAll() {
      upstream.respond((_request, response) => answer(response));
      for (const { response } of held.splice(0)) answer(response);
    },
  };
}

export type HeldCalls = ReturnType<typeof heldCalls>;

/** A real HTTP server on 127.0.0.1 that records every request; answers `{ok: true, path}` until told otherwise. */
export async function startUpstream(): Promise<Upstream> {
  const received: ReceivedRequest[] = [];
  let handler = (request: ReceivedRequest, response: ServerResponse) => json(response, 200, { ok: true, path: request.url });
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      handler(entry, response);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    respond(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

export async function givenPublishedResource(
  api: TestApi,
  owner: TestUser,
  overrides: Record<string, unknown> = {},
  endpoint: Record<string, unknown> = {},
): Promise<string> {
  const created = await api.as(owner.apiKey).post('/api/sdk/v1/resources', resourceInput(overrides, endpoint));
  if (created.status !== 201) throw new Error(`create failed: ${created.text}`);
  const id = created.body.data.id as string;
  const published = await api.as(owner.apiKey).post(`/api/sdk/v1/resources/${id}/publish`, {});
  if (published.status !== 200) throw new Error(`publish failed: ${published.text}`);
  return id;
}

export async function givenInstalled(api: TestApi, user: TestUser, resourceId: string): Promise<Record<string, any>> {
  const installed = await api.as(user.apiKey).post(`/api/sdk/v1/resources/${resourceId}/install`);
  if (installed.status !== 201) throw new Error(`install failed: ${installed.text}`);
  return installed.body.data;
}

export interface ResourceWorld {
  api: TestApi;
  upstream: Upstream;
  /** Publishes the resources. */
  owner: TestUser;
  /** Installs and calls them. */
  user: TestUser;
}

/** A resources test file's platform, upstream and two users: started before its tests, stopped after them. */
export function resourceWorld(): ResourceWorld {
  const world = {} as ResourceWorld;
  beforeAll(async () => {
    [world.api, world.upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
    [world.owner, world.user] = await Promise.all([world.api.givenUser(), world.api.givenUser()]);
  });
  afterAll(async () => {
    await world.upstream.close();
    await world.api.stop();
  });
  return world;
}

export interface HeldRunWorld {
  api: TestApi;
  upstream: Upstream;
  calls: HeldCalls;
  /** Published the resource and installed it. */
  owner: TestUser;
  resourceId: string;
  resourceName: string;
}

/**
 * A test file's platform, upstream and an owner's resource on it, for scripts whose runs wait inside their handlers on
 * a call the test answers: started before its tests; after each, the API's wait is the default again and every held
 * call is answered; stopped after them.
 */
export function heldRunWorld(resource: Record<string, unknown> = {}): HeldRunWorld {
  const world = {} as HeldRunWorld;
  beforeAll(async () => {
    [world.api, world.upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
    world.calls = heldCalls(world.upstream);
    world.owner = await world.api.givenUser();
    world.resourceName = `held-${Date.now().toString(36)}`;
    world.resourceId = await givenPublishedResource(world.api, world.owner, { name: world.resourceName, ...resource }, { baseUrl: world.upstream.baseUrl });
    await givenInstalled(world.api, world.owner, world.resourceId);
  });
  afterEach(() => {
    reconfigurePlatform({ RUN_WAIT_SECONDS: undefined });
    world.calls.answerAll();
  });
  afterAll(async () => {
    await world.upstream.close();
    await world.api.stop();
  });
  return world;
}
