// POST /mcp's catalog as it changes: flows and document search as tools, and every change (installing, renaming,
// deleting, a key of other scopes) showing at the next request although catalogs are kept between requests.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handbookPages, mime, settled, upload } from '../support/documents.js';
import { givenTimeFlow } from '../support/flows.js';
import { connectMcp } from '../support/mcp.js';
import { givenInstalled, givenPublishedResource, resourceWorld } from '../support/resources.js';
import { givenDeployed, givenListed } from '../support/scripts.js';

const world = resourceWorld();
let agent: Client;

beforeAll(async () => {
  agent = await connectMcp(world.api, world.user.apiKey, 'catalog-test');
});
afterAll(async () => {
  await agent?.close();
});

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

describe('POST /mcp: the catalog follows every change at once', () => {
  it('shows an installed resource at once and drops it once uninstalled', async () => {
    // Prepare
    const resourceId = await givenPublishedResource(world.api, world.owner, { name: 'Tide Times' }, { baseUrl: `${world.upstream.baseUrl}/v1` });
    expect(await toolNames(agent)).not.toContain('resource.tide-times.getForecast');
    // Act
    await givenInstalled(world.api, world.user, resourceId);
    const installed = await toolNames(agent);
    await world.api.as(world.user.apiKey).delete(`/api/sdk/v1/resources/${resourceId}/install`);
    const uninstalled = await toolNames(agent);
    // Assess
    expect(installed).toContain('resource.tide-times.getForecast');
    expect(uninstalled).not.toContain('resource.tide-times.getForecast');
  });

  it("shows an installed script's new name as soon as its owner renames it", async () => {
    // Prepare
    const script = await givenListed(world.api, world.owner, { name: 'Shared Helper', description: 'helps' });
    expect((await world.api.as(world.user.apiKey).post(`/api/sdk/v1/scripts/${script.id}/install`, {})).status).toBe(201);
    expect(await toolNames(agent)).toContain('script.shared-helper');
    // Act
    const renamed = await world.api.as(world.owner.apiKey).patch(`/api/sdk/v1/scripts/${script.id}`, { name: 'Renamed Helper' });
    const names = await toolNames(agent);
    // Assess
    expect(renamed.status).toBe(200);
    expect(names).toContain('script.renamed-helper');
    expect(names).not.toContain('script.shared-helper');
  });

  it('gives a key of narrower scopes only the tools they allow, whatever another key of the user listed before', async () => {
    // Prepare
    await toolNames(agent);
    const narrow = await world.api.as(world.user.apiKey).post('/api/sdk/v1/keys', { name: 'flows only', scopes: ['flows:manage'] });
    const flowsAgent = await connectMcp(world.api, narrow.body.data.apiKey);
    // Act
    const names = await toolNames(flowsAgent);
    // Assess
    expect(names.filter((name) => !name.startsWith('flow.'))).toEqual([]);
    await flowsAgent.close();
  });
});

describe('POST /mcp: flows and documents as tools', () => {
  it('runs a flow as a tool: its result, and a run record with trigger mcp and the client', async () => {
    // Prepare
    const script = await givenDeployed(world.api, world.user, { name: 'Flow Step' });
    const flow = await givenTimeFlow(world.api, world.user, script.id, { title: 'Nightly Digest' });
    const tool = (await agent.listTools()).tools.find((candidate) => candidate.name === 'flow.nightly-digest');
    // Act
    const result = await agent.callTool({ name: 'flow.nightly-digest', arguments: {} });
    // Assess
    expect(tool).toMatchObject({ inputSchema: { type: 'object', properties: {}, additionalProperties: false } });
    expect(result.isError).toBeFalsy();
    const { executionId, status } = result.structuredContent as Record<string, any>;
    expect(status).toBe('success');
    const history = await world.api.as(world.user.apiKey).get('/api/sdk/v1/executions?trigger=mcp');
    expect(history.body.data.executions).toContainEqual(expect.objectContaining({ executionId, flowId: flow.id, trigger: 'mcp', source: 'catalog-test' }));
  });

  it("searches the caller's documents with the search's own input schema", async () => {
    // Prepare
    const uploaded = await upload(world.api, world.user, { bytes: handbookPages.flat().join('\n\n'), filename: 'handbook.txt', mimeType: mime.text });
    expect((await settled(world.api, world.user, uploaded.body.data.documentId)).status).toBe('completed');
    const tool = (await agent.listTools()).tools.find((candidate) => candidate.name === 'documents.search');
    // Act
    const result = await agent.callTool({ name: 'documents.search', arguments: { query: 'How long is the frame warranty?', threshold: 0 } });
    // Assess
    expect(tool?.inputSchema).toMatchObject({ properties: { query: { type: 'string', maxLength: 2000 }, limit: { maximum: 100 } }, required: ['query'] });
    expect(result.isError).toBeFalsy();
    const { results } = result.structuredContent as { results: { content?: string; text?: string }[] };
    expect(JSON.stringify(results)).toContain('ten-year warranty');
  });
});
