// Attacks on POST /mcp: DNS rebinding (a foreign Host or Origin), bodies too big or too deep, JSON-RPC batches that
// would multiply the work of one request, tool names crafted to reach another user's tools or to break out of the
// name rule, hostile input schemas on scripts that others install and call, another user's flow, and hostile document
// searches.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as serveMcp } from '../../functions/app/agents/handlers/serve-mcp.js';
import { printAttackSummary } from '../support/attack-summary.js';
import { httpEvent, lambdaContext } from '../support/lambda-event.js';
import { connectMcp, postMcp, rpc } from '../support/mcp.js';
import { givenInstalled, givenPublishedResource, resourceWorld } from '../support/resources.js';
import { givenTimeFlow } from '../support/flows.js';
import { givenDeployed, givenScript } from '../support/scripts.js';

printAttackSummary('MCP server (rebinding, body bounds, batches, tool names, input schemas)');

const world = resourceWorld();
let agent: Client;
const bearer = () => ({ authorization: `Bearer ${world.user.apiKey}` });

beforeAll(async () => {
  const resourceId = await givenPublishedResource(
    world.api,
    world.owner,
    { name: 'Weather <script>alert(1)</script>\n../../x' },
    { baseUrl: `${world.upstream.baseUrl}/v1` },
  );
  await givenInstalled(world.api, world.user, resourceId);
  agent = await connectMcp(world.api, world.user.apiKey);
});
afterAll(async () => {
  await agent?.close();
});

describe('DNS rebinding', () => {
  it('refuses a foreign Origin with 403 and runs nothing', async () => {
    // Prepare
    const before = world.upstream.received.length;
    // Act
    const answer = await postMcp(world.api, rpc('tools/call', { name: 'resource.weather-script-alert-1-script-x.getForecast', arguments: { city: 'x' } }), {
      ...bearer(),
      origin: 'http://evil.example',
    });
    // Assess
    expect(answer.status).toBe(403);
    expect(world.upstream.received.length).toBe(before);
  });

  it('refuses an Origin of the same host under another port, and the opaque Origin null', async () => {
    // Act
    const answers = await Promise.all(['http://127.0.0.1:1', 'null'].map((origin) => postMcp(world.api, rpc('tools/list'), { ...bearer(), origin })));
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([403, 403]);
  });

  it("refuses a Host that is not the deployment's, as API Gateway hands it to the function", async () => {
    // Prepare: the identity the authorizer resolved, and a Host header naming another site
    const event = httpEvent({
      method: 'POST',
      path: '/mcp',
      body: rpc('tools/list'),
      headers: { host: 'evil.example', accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      identity: { userId: world.user.userId, keyId: 'key_test', scopes: '*' },
    });
    // Act
    const answer = await serveMcp(event, lambdaContext);
    // Assess
    expect(answer).toMatchObject({ statusCode: 403 });
    expect(JSON.parse(String((answer as { body: string }).body))).toMatchObject({ error: { message: expect.stringMatching(/Host/) } });
  });
});

describe('body bounds and batches', () => {
  it('answers a body past 1 MiB with 413 in JSON-RPC', async () => {
    // Act
    const answer = await postMcp(world.api, rpc('tools/call', { name: 'get_run', arguments: { executionId: 'x'.repeat(1024 * 1024 + 10) } }), bearer());
    // Assess
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('answers a message nested 10,000 levels deep with invalid request, never a 500', async () => {
    // Act
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_run","arguments":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const answer = await postMcp(world.api, deep, bearer());
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });

  it('refuses a JSON-RPC batch of tool calls whole, calling nothing', async () => {
    // Prepare
    const before = world.upstream.received.length;
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'resource.weather-script-alert-1-script-x.getForecast', arguments: { city: 'x' } },
    });
    // Act
    const answer = await postMcp(world.api, JSON.stringify(Array.from({ length: 50 }, (_, index) => call(index))), bearer());
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/batch/) } });
    expect(world.upstream.received.length).toBe(before);
  });
});

describe('tool names', () => {
  it("turns a hostile resource name into a valid tool name, and lists only names of MCP's rule", async () => {
    // Act
    const { tools } = await agent.listTools();
    // Assess
    for (const tool of tools) expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
    expect(tools.map((tool) => tool.name)).toContain('resource.weather-script-alert-1-script-x.getForecast');
  });

  it('answers names with control characters, path tricks, wildcards or 10,000 characters as unknown tools, with a bounded message', async () => {
    // Prepare
    const names = [
      'resource.weather-script-alert-1-script-x.getForecast\u0000',
      '../resource.x',
      'resource.*',
      'resource.%2e%2e.getForecast',
      'r'.repeat(10_000),
      '',
    ];
    // Act
    const answers = await Promise.all(names.map((name, index) => postMcp(world.api, rpc('tools/call', { name, arguments: {} }, index), bearer())));
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32602, message: expect.stringMatching(/Unknown tool/) } });
      expect(answer.text.length).toBeLessThan(600);
    }
  });

  it("cannot reach another user's tool by its name", async () => {
    // Prepare
    const other = await world.api.givenUser();
    const before = world.upstream.received.length;
    // Act
    const answer = await postMcp(world.api, rpc('tools/call', { name: 'resource.weather-script-alert-1-script-x.getForecast', arguments: { city: 'x' } }), {
      authorization: `Bearer ${other.apiKey}`,
    });
    // Assess
    expect(answer.body).toMatchObject({ error: { message: expect.stringMatching(/Unknown tool/) } });
    expect(world.upstream.received.length).toBe(before);
  });
});

describe("scripts' input schemas", () => {
  it.each([
    ['a regular expression that backtracks', { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }, /pattern/],
    ['a reference', { type: 'object', properties: { s: { $ref: 'http://169.254.169.254/latest' } } }, /\$ref/],
    ['not an object schema', { type: 'string' }, /object/],
    [
      'nesting 17 levels, within the body bound',
      { type: 'object', properties: JSON.parse(`${'{"a":{"type":"object","properties":'.repeat(8)}{}${'}}'.repeat(8)}`) },
      /levels/,
    ],
    [
      '20 KB of properties',
      { type: 'object', properties: Object.fromEntries(Array.from({ length: 800 }, (_, index) => [`p${index}`, { type: 'string' }])) },
      /bytes/,
    ],
    ['an invalid JSON Schema', { type: 'object', required: 'everything' }, /valid JSON Schema/],
  ])('refuses %s with VALIDATION_ERROR on config.inputSchema, creating nothing', async (_label, inputSchema, message) => {
    // Act
    const created = world.api
      .as(world.owner.apiKey)
      .post('/api/sdk/v1/scripts', { name: 'hostile', description: '', code: 'export const handler = () => 1', config: { inputSchema } });
    // Assess
    const answer = await created;
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(message),
      details: { field: expect.stringContaining('inputSchema') },
    });
  });

  it('takes a bounded input schema', async () => {
    // Act
    const script = await givenScript(world.api, world.owner, {
      config: { inputSchema: { type: 'object', properties: { n: { type: 'integer', maximum: 10 } } } },
    });
    // Assess
    expect(script.id).toEqual(expect.any(String));
  });
});

describe('flow and document tools', () => {
  it("never runs another user's flow: its tool is unknown to everyone else", async () => {
    // Prepare
    const script = await givenDeployed(world.api, world.owner, { name: 'Owner Step' });
    await givenTimeFlow(world.api, world.owner, script.id, { title: 'Owner Only Flow' });
    const ownerAgent = await connectMcp(world.api, world.owner.apiKey);
    // Act
    const ownerNames = (await ownerAgent.listTools()).tools.map((tool) => tool.name);
    const stranger = agent.callTool({ name: 'flow.owner-only-flow', arguments: {} });
    // Assess
    expect(ownerNames).toContain('flow.owner-only-flow');
    await expect(stranger).rejects.toThrow(/Unknown tool/);
    await ownerAgent.close();
  });

  it.each([
    ['a graph the caller is not a member of', { query: 'secrets', graphId: 'group:not-mine' }, /NOT_FOUND|FORBIDDEN/],
    ['a limit past 100', { query: 'x', limit: 1_000_000 }, /input schema/],
    ['a blank query', { query: '   ' }, /VALIDATION_ERROR/],
    ['a graph id with a path in it', { query: 'x', graphId: 'user:../../etc' }, /input schema/],
  ])('answers documents.search over %s with a tool error, never a 500', async (_label, args, reason) => {
    // Act
    const result = await agent.callTool({ name: 'documents.search', arguments: args });
    // Assess
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(reason);
  });
});
