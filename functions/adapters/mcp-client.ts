// Remote MCP servers for llm flows: the MCP SDK's client over Streamable HTTP, with the outbound guard as its fetch
// (private ranges refused unless allowed, bounded time and size), one short connection per listing and per call, so
// no connection outlives a step of a run.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { outboundRequest } from '#platform/outbound.js';
import type { RemoteMcpServers, RemoteTool } from '../flows/ports.js';

const timeoutMs = 30_000;
const maxResponseBytes = 1024 * 1024;
/** Statuses whose Response may carry no body. */
const bodiless = new Set([101, 204, 205, 304]);

/**
 * fetch's shape over the outbound guard. A GET (the standing SSE stream a client may open) is answered 405 without
 * going out, which the transport takes as "no stream": a run listens to nothing between its calls.
 */
export async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const method = (init?.method ?? 'GET').toUpperCase();
  if (method === 'GET') return new Response(null, { status: 405 });
  const body = init?.body;
  const answer = await outboundRequest({
    url: input instanceof Request ? input.url : String(input),
    method,
    headers: Object.fromEntries(new Headers(init?.headers).entries()),
    ...(typeof body === 'string' && { body }),
    timeoutMs,
    maxResponseBytes,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers))
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  return new Response(bodiless.has(answer.status) ? null : new Uint8Array(answer.body), { status: answer.status, headers });
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'automation-platform-flow', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: guardedFetch }));
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

export const remoteMcpServers: RemoteMcpServers = {
  listTools: (url) =>
    withClient(url, async (client) =>
      (await client.listTools()).tools.map(
        (tool): RemoteTool => ({ name: tool.name, ...(tool.description && { description: tool.description }), inputSchema: tool.inputSchema }),
      ),
    ),
  callTool: (url, name, args) =>
    withClient(url, async (client) => {
      const result = await client.callTool({ name, arguments: args });
      return {
        isError: result.isError === true,
        content: result.content,
        ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent }),
      };
    }),
};
