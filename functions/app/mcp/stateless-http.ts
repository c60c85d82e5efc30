// Stateless MCP over one HTTP request (Streamable HTTP with no session): a fresh SDK server per request answers the
// JSON-RPC message in JSON; GET and DELETE (a stream, a session) are 405. Host and Origin must be the deployment's own
// (DNS rebinding). Requests reach it through the platform's handler, so it runs alike on Lambda and under `npm start`.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type HttpEvent, Reply } from '#platform/http.js';

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Reply(status, JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { 'Content-Type': 'application/json', ...headers });

/** Answers one MCP request with the server `build` makes for it; `baseUrl` is the deployment's own origin. */
export async function answerMcp(event: HttpEvent, rawBody: string, baseUrl: string, build: () => Server): Promise<Reply> {
  const method = event.requestContext.http.method;
  if (method !== 'POST')
    return jsonRpcError(405, -32000, `${method} is not served: this MCP server is stateless, send each message in a POST`, { Allow: 'POST' });
  const own = new URL(baseUrl);
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers)) if (value !== undefined) headers.set(name, value);
  const request = new Request(`${own.origin}${event.rawPath}`, { method, headers, body: rawBody });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    allowedHosts: [own.host],
    allowedOrigins: [own.origin],
  });
  const server = build();
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    const body = await response.text();
    const contentType = response.headers.get('content-type');
    return new Reply(response.status, body, contentType ? { 'Content-Type': contentType } : {});
  } finally {
    await server.close();
  }
}
