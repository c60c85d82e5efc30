import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, runCli } from '../support/cli.js';
import { connectMcp, postMcp, rpc } from '../support/mcp.js';
import { givenInstalled, givenPublishedResource, resourceWorld } from '../support/resources.js';
import { givenDeployed } from '../support/scripts.js';

const world = resourceWorld();
let resourceId: string;
let agent: Client;

beforeAll(async () => {
  resourceId = await givenPublishedResource(
    world.api,
    world.owner,
    { name: 'Weather Now' },
    { baseUrl: `${world.upstream.baseUrl}/v1`, authentication: 'bearer' },
  );
  await givenInstalled(world.api, world.user, resourceId);
  const stored = await world.api
    .as(world.user.apiKey)
    .post(`/api/sdk/v1/resources/${resourceId}/authenticate`, { type: 'bearer', credentials: { token: 'user-token-1' } });
  expect(stored.status).toBe(200);
  agent = await connectMcp(world.api, world.user.apiKey, 'claude-test');
});
afterAll(async () => {
  await agent?.close();
});

const toolNames = async (client: Client) => {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
};

describe('POST /mcp with the SDK client', () => {
  it('initializes with the server info and the tools capability, and answers ping', async () => {
    // Act
    const pong = await agent.ping();
    // Assess
    expect(agent.getServerVersion()).toMatchObject({ name: 'automation-marketplace' });
    expect(agent.getServerCapabilities()).toMatchObject({ tools: {} });
    expect(pong).toEqual({});
  });

  it("lists the installed resource's methods with schemas and annotations", async () => {
    // Act
    const { tools } = await agent.listTools();
    // Assess
    const forecast = tools.find((tool) => tool.name === 'resource.weather-now.getForecast');
    expect(forecast).toMatchObject({
      title: 'Weather Now: getForecast',
      inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
      annotations: { readOnlyHint: true, openWorldHint: true },
    });
    expect(tools.find((tool) => tool.name === 'resource.weather-now.report')?.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['get_run', 'marketplace.search', 'marketplace.install']));
    for (const tool of tools) expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
  });

  it('calls a resource method with the stored credential injected', async () => {
    // Act
    const result = await agent.callTool({ name: 'resource.weather-now.getForecast', arguments: { city: 'Lisbon', days: 2 } });
    // Assess
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 200, success: true, data: { ok: true, path: expect.stringContaining('/v1/forecast/Lisbon') } });
    const upstream = world.upstream.received.at(-1)!;
    expect(upstream.headers.authorization).toBe('Bearer user-token-1');
    expect(new URL(upstream.url, 'http://x').searchParams.get('days')).toBe('2');
  });

  it('runs a script as a run with trigger mcp and the client name', async () => {
    // Prepare
    const script = await givenDeployed(world.api, world.user, {
      name: 'Echo Data',
      config: { inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } },
    });
    // Act
    const result = await agent.callTool({ name: 'script.echo-data', arguments: { word: 'hello' } });
    // Assess
    expect(result.isError).toBeFalsy();
    const { executionId, status, output } = result.structuredContent as Record<string, any>;
    expect(status).toBe('success');
    expect(output).toMatchObject({ data: { word: 'hello' }, trigger: 'mcp', scriptId: script.id });
    const history = await world.api.as(world.user.apiKey).get('/api/sdk/v1/executions?trigger=mcp');
    expect(history.body.data.executions).toContainEqual(
      expect.objectContaining({ executionId, scriptId: script.id, trigger: 'mcp', source: 'claude-test', status: 'completed' }),
    );
    const record = await world.api.as(world.user.apiKey).get(`/api/sdk/v1/scripts/${script.id}/executions/${executionId}`);
    expect(record.body.data).toMatchObject({ executionId, trigger: 'mcp', client: 'claude-test' });
    const read = await agent.callTool({ name: 'get_run', arguments: { executionId } });
    expect(read.structuredContent).toMatchObject({ executionId, status: 'success' });
  });

  it('gives a script without an input schema a data argument', async () => {
    // Prepare
    await givenDeployed(world.api, world.user, { name: 'Plain Echo' });
    // Act
    const { tools } = await agent.listTools();
    const result = await agent.callTool({ name: 'script.plain-echo', arguments: { data: { n: 1 } } });
    // Assess
    expect(tools.find((tool) => tool.name === 'script.plain-echo')?.inputSchema).toEqual({ type: 'object', properties: { data: expect.any(Object) } });
    expect((result.structuredContent as Record<string, any>).output).toMatchObject({ data: { n: 1 } });
  });

  it('pages tools/list with a cursor', async () => {
    // Prepare: enough methods on two resources to need a second page
    const methods = Array.from({ length: 60 }, (_, index) => ({
      name: `m${String(index).padStart(3, '0')}`,
      httpMethod: 'GET',
      path: `/m/${index}`,
      parameters: {},
    }));
    for (const name of ['Many Methods', 'More Methods']) {
      const many = await givenPublishedResource(world.api, world.owner, { name }, { baseUrl: `${world.upstream.baseUrl}/v1`, methods });
      await givenInstalled(world.api, world.user, many);
    }
    // Act
    const first = await agent.listTools();
    const all = await toolNames(agent);
    // Assess
    expect(first.tools).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((name) => /^resource\.(many|more)-methods\./.test(name))).toHaveLength(120);
  });

  it("keeps a second user from seeing or calling the first user's tools", async () => {
    // Prepare
    const other = await world.api.givenUser();
    const stranger = await connectMcp(world.api, other.apiKey);
    // Act
    const names = await toolNames(stranger);
    const call = stranger.callTool({ name: 'resource.weather-now.getForecast', arguments: { city: 'Oslo' } });
    // Assess
    expect(names.filter((name) => name.startsWith('resource.') || name.startsWith('script.'))).toEqual([]);
    await expect(call).rejects.toThrow(/Unknown tool/);
    await stranger.close();
  });

  it('answers a call whose arguments fail the input schema with a tool error, calling nothing', async () => {
    // Prepare
    const before = world.upstream.received.length;
    // Act
    const result = await agent.callTool({ name: 'resource.weather-now.getForecast', arguments: { days: 'soon' } });
    // Assess
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/do not match the input schema/);
    expect(world.upstream.received.length).toBe(before);
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    // Act
    const call = agent.callTool({ name: 'resource.nothing.here', arguments: {} });
    // Assess
    await expect(call).rejects.toThrow(/Unknown tool/);
  });

  it('shows only the tools a key scoped to resource calls allows', async () => {
    // Prepare
    const created = await world.api.as(world.user.apiKey).post('/api/sdk/v1/keys', { name: 'calls only', scopes: ['resources:call'] });
    const scoped = await connectMcp(world.api, created.body.data.key ?? created.body.data.apiKey);
    // Act
    const names = await toolNames(scoped);
    // Assess
    expect(names).toContain('resource.weather-now.getForecast');
    expect(names.filter((name) => name.startsWith('script.'))).toEqual([]);
    await scoped.close();
  });
});

describe('platform mcp', () => {
  const env = () => ({ PLATFORM_BASE_URL: world.api.baseUrl, PLATFORM_API_KEY: world.user.apiKey, PLATFORM_CONFIG: '/nonexistent/config.json' });

  it('lists the tools and calls one with --args, through the SDK client', async () => {
    // Act
    const tools = jsonOf(await runCli(['mcp', 'tools', '--json'], env()));
    const called = jsonOf(await runCli(['mcp', 'call', 'resource.weather-now.getForecast', '--args', '{"city":"Rome"}', '--json'], env()));
    // Assess
    expect(tools.map((tool: { name: string }) => tool.name)).toContain('resource.weather-now.getForecast');
    expect(called.structuredContent).toMatchObject({ status: 200, success: true });
    expect(world.upstream.received.at(-1)!.url).toContain('/v1/forecast/Rome');
  });

  it('exits 3 when the tool answers with an error, and 2 on arguments that are not a JSON object', async () => {
    // Act
    const failed = await runCli(['mcp', 'call', 'resource.weather-now.getForecast', '--args', '{"days":"x"}'], env());
    const usage = await runCli(['mcp', 'call', 'get_run', '--args', '[1]'], env());
    // Assess
    expect(failed.code).toBe(3);
    expect(failed.stdout).toMatch(/do not match the input schema/);
    expect(usage.code).toBe(2);
  });
});

describe('POST /mcp refusals', () => {
  it('answers 401 with the protected-resource challenge without a key, with an unknown one and with a revoked one', async () => {
    // Prepare
    const created = await world.api.as(world.user.apiKey).post('/api/sdk/v1/keys', { name: 'to revoke' });
    const revokedKey = created.body.data.key ?? created.body.data.apiKey;
    await world.api.as(world.user.apiKey).delete(`/api/sdk/v1/keys/${created.body.data.keyId}`);
    // Act
    const answers = await Promise.all([
      postMcp(world.api, rpc('tools/list')),
      postMcp(world.api, rpc('tools/list'), { authorization: 'Bearer amp_not_a_key' }),
      postMcp(world.api, rpc('tools/list'), { authorization: `Bearer ${revokedKey}` }),
    ]);
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${world.api.baseUrl}/.well-known/oauth-protected-resource"`);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
    expect(answers[2]!.body.error.message).toMatch(/revoked/);
  });

  it('answers malformed JSON and a message that is not JSON-RPC with JSON-RPC errors', async () => {
    // Act
    const [notJson, notRpc] = await Promise.all([
      postMcp(world.api, '{"jsonrpc": "2.0", "id": 1,', { authorization: `Bearer ${world.user.apiKey}` }),
      postMcp(world.api, JSON.stringify({ hello: 'world' }), { authorization: `Bearer ${world.user.apiKey}` }),
    ]);
    // Assess
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(notRpc.status).toBe(400);
    expect(notRpc.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
  });

  it('answers GET and DELETE with 405', async () => {
    // Act
    const [get, remove] = await Promise.all([
      world.api.request('GET', '/mcp', { headers: { authorization: `Bearer ${world.user.apiKey}`, accept: 'text/event-stream' } }),
      world.api.request('DELETE', '/mcp', { headers: { authorization: `Bearer ${world.user.apiKey}` } }),
    ]);
    // Assess
    expect(get.status).toBe(405);
    expect(remove.status).toBe(405);
  });

  it('refuses a foreign Origin with 403', async () => {
    // Act
    const answer = await postMcp(world.api, rpc('tools/list'), { authorization: `Bearer ${world.user.apiKey}`, origin: 'https://evil.example' });
    // Assess
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/Origin/) } });
  });

  it('accepts the Origin of the deployment itself', async () => {
    // Act
    const answer = await postMcp(world.api, rpc('ping'), { authorization: `Bearer ${world.user.apiKey}`, origin: world.api.baseUrl });
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
