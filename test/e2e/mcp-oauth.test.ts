// An MCP client that connected through OAuth (the SDK's own auth() flow: registration, PKCE, consent, token) calls
// POST /mcp with its access token and sees the user's tools; the same client with the SDK's auth provider connects
// with no key at all; a revoked grant is refused at /mcp at once.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, postMcp, rpc } from '../support/mcp.js';
import { connectAgent, mcpUrl } from '../support/oauth.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

describe('MCP over OAuth', () => {
  it("lists and calls the user's own script tool with an access token from the SDK's auth flow, and nothing of another user's", async () => {
    // Prepare
    await givenDeployed(api, owner, { name: 'oauth-echo', code: 'export async function handler(event) { return { echoed: event.data }; }' });
    await givenDeployed(api, other, { name: 'someone-elses', code: 'export async function handler() { return 1; }' });
    const { tokens } = await connectAgent(api, owner);
    // Act
    const client = await connectMcp(api, tokens.access_token, 'oauth-agent');
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) => candidate.name.includes('oauth-echo'));
    const called = await client.callTool({ name: tool!.name, arguments: { data: { hello: 'agent' } } });
    await client.close();
    // Assess
    expect(tools.some((candidate) => candidate.name.includes('someone-elses'))).toBe(false);
    expect(called.isError ?? false).toBe(false);
    expect(JSON.stringify(called.structuredContent ?? called.content)).toContain('agent');
  });

  it('connects through the SDK transport with its OAuth provider and no key pasted', async () => {
    // Prepare
    const { provider } = await connectAgent(api, owner);
    const client = new Client({ name: 'provider-agent', version: '1.0.0' });
    // Act
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl(api)), { authProvider: provider }));
    const pinged = await client.ping();
    await client.close();
    // Assess
    expect(pinged).toEqual({});
  });

  it('refuses the access token of a revoked grant at /mcp, and an OAuth token on the REST API', async () => {
    // Prepare
    const grantIds = async () =>
      ((await api.as(owner.apiKey).get('/api/sdk/v1/keys?limit=100')).body.data.keys as Array<{ keyId: string; kind: string }>)
        .filter((key) => key.kind === 'oauth')
        .map((key) => key.keyId);
    const before = await grantIds();
    const { tokens } = await connectAgent(api, owner);
    const grant = { keyId: (await grantIds()).find((keyId) => !before.includes(keyId))! };
    const rest = await api.as(tokens.access_token).get('/api/sdk/v1/scripts');
    // Act
    const revoked = await api.as(owner.apiKey).delete(`/api/sdk/v1/keys/${grant.keyId}`);
    const refused = await postMcp(api, rpc('ping'), { authorization: `Bearer ${tokens.access_token}` });
    // Assess
    expect(rest.status).toBe(401);
    expect(revoked.status).toBe(200);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
