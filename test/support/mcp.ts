// MCP clients for tests: the SDK's own Client over its Streamable HTTP transport against the local platform's /mcp,
// and a raw POST for what a conforming client never sends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ApiResponse, TestApi } from './platform.js';

export const mcpPath = '/mcp';

/** A connected SDK client (initialize done) presenting `token` as a bearer token. */
export async function connectMcp(api: TestApi, token: string, name = 'test-agent'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.baseUrl}${mcpPath}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** One JSON-RPC POST as raw text, with the headers a conforming client sends unless `headers` says otherwise. */
export function postMcp(api: TestApi, body: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return api.request('POST', mcpPath, {
    rawBody: body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
  });
}

export const rpc = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
