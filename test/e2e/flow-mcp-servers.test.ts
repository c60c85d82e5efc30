// An llm flow offered the tools of a remote MCP server (a real MCP SDK server started here, on a local port the
// outbound guard lets through in local mode): the model sees the allowed tools only, its call reaches the server and
// the result comes back; a tool named in approvalRequired waits for the owner and reaches nothing before.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { flowsPath, givenEventFlow } from '../support/flows.js';
import { reconfigurePlatform } from '../support/platform.js';
import { type ToolFlowWorld, startToolFlowWorld, unsetLanguageModel } from '../support/tool-flows.js';

let world: ToolFlowWorld;
let remote: Server;
let remoteUrl: string;
const echoed: string[] = [];

/** A stateless MCP server: a fresh server and transport per request, as the SDK's stateless example does. */
function startRemote(): Promise<Server> {
  const server = createServer(async (request, response) => {
    const mcp = new McpServer({ name: 'remote-tools', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, async ({ text }) => {
      echoed.push(text);
      return { content: [{ type: 'text', text: `echo: ${text}` }] };
    });
    mcp.registerTool('wipe', { description: 'Not for this flow', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'wiped' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  [world, remote] = await Promise.all([startToolFlowWorld(), startRemote()]);
  remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/mcp`;
});
afterEach(unsetLanguageModel);
afterAll(async () => {
  await new Promise((resolve) => remote.close(resolve));
  await world.stop();
});

const toolName = 'mcp_127_0_0_1__echo';

describe('llm flows: remote MCP servers as tools', () => {
  it('offers the allowed tools of the server, calls the one the model asks for and gives the model its result', async () => {
    // Prepare
    const { api, llm } = world;
    const user = await api.givenUser();
    reconfigurePlatform({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'test-model' });
    llm.script([
      () => ({ toolCalls: [{ name: toolName, arguments: { text: 'hello remote' } }] }),
      (request) => ({ content: `done: ${request.messages.at(-1)!.content}` }),
    ]);
    const flow = await givenEventFlow(api, user, { prompt: 'Echo it.', mcpServers: [{ url: remoteUrl, allowedTools: ['echo'] }] });
    const asked = llm.requests.length;
    // Act
    const ran = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    // Assess
    expect(ran.status, ran.text).toBe(200);
    expect(flow.mcpServers).toEqual([{ url: remoteUrl, allowedTools: ['echo'] }]);
    const offered = llm.requests[asked]!.tools!.map((tool) => tool.function.name);
    expect(offered).toEqual([toolName]);
    expect(echoed).toContain('hello remote');
    expect(JSON.stringify(ran.body.data)).toContain('echo: hello remote');
  });

  it('holds a remote tool named in approvalRequired: the run waits and the server sees no call', async () => {
    // Prepare
    const { api, llm } = world;
    const user = await api.givenUser();
    reconfigurePlatform({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'test-model' });
    llm.script([() => ({ toolCalls: [{ name: toolName, arguments: { text: 'held' } }] }), () => ({ content: 'done' })]);
    const flow = await givenEventFlow(api, user, { prompt: 'Echo it.', mcpServers: [{ url: remoteUrl }], approvalRequired: [toolName] });
    // Act
    const ran = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    // Assess
    expect(ran.status, ran.text).toBe(202);
    expect(ran.body.data.status).toBe('waiting');
    expect(echoed).not.toContain('held');
  });

  it('refuses a server URL that is not http(s)', async () => {
    // Prepare
    const { api } = world;
    const user = await api.givenUser();
    // Act
    const badScheme = await api.as(user.apiKey).post(flowsPath('createEventFlow'), {
      title: 't',
      description: 'd',
      eventType: 'custom.test',
      conditions: { operator: 'AND', conditions: [] },
      prompt: 'p',
      mcpServers: [{ url: 'file:///etc/passwd' }],
    });
    // Assess
    expect(badScheme.status).toBe(400);
    expect(badScheme.body.error.code).toBe('VALIDATION_ERROR');
  });
});
