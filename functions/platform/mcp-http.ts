// One MCP exchange over one HTTP request (Streamable HTTP, stateless): the request's checks (method, Host and Origin
// against DNS rebinding, size, depth, no batches), then a fresh server built for it and the SDK's own transport, whose
// answer becomes the Lambda result. Nothing outlives the request, so any instance (Lambda or `npm start`) serves any.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { maxInputDepth, nestsDeeperThan } from './json-bounds.js';
import type { Caller } from './caller.js';
import { edgePorts } from './edge.js';
import { AppError } from './errors.js';
import { requestBaseUrl } from './http.js';
import { logger, withLogKeys } from './logger.js';
import { authorizerCaller } from './middlewares/authenticate.js';
import { recordOperation } from './middlewares/observe.js';
import { rateLimit } from './middlewares/rate-limit.js';
import type { HttpEvent, HttpResult, RequestState } from './middlewares/request-state.js';
import type { Route } from './route.js';
import { settings } from './settings.js';

/** An MCP message is a tool call's arguments at most: far below Lambda's payload limit. */
export const maxMcpBodyBytes = 1024 * 1024;

/** JSON-RPC's own codes, and the SDK's for a transport-level refusal. */
export const jsonRpcCodes = { parseError: -32700, invalidRequest: -32600, invalidParams: -32602, methodNotFound: -32601, refused: -32000 } as const;

function jsonRpcError(statusCode: number, code: number, message: string, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }),
  };
}

const hostOf = (url: string | undefined) => {
  if (!url) return undefined;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
};

/**
 * The hosts this deployment answers on: the API's own domain, the public base URL when one is set, and on AWS the
 * console's address, whose distribution forwards /mcp (the stack gives it to every function that runs scripts).
 */
function deploymentHosts(event: HttpEvent): Set<string> {
  const named = [event.requestContext.domainName.toLowerCase(), hostOf(settings.publicBaseUrl), hostOf(settings.consoleBaseUrl)];
  return new Set(named.filter((host): host is string => Boolean(host)));
}

/**
 * DNS rebinding: a page on another site that resolves its name to this server sends its own Host and Origin. The Host
 * must be one of the deployment's; an Origin, when a browser sends one, must be one of its origins too.
 */
function foreignSite(event: HttpEvent): string | undefined {
  const hosts = deploymentHosts(event);
  const host = event.headers.host?.toLowerCase();
  if (host && !hosts.has(host)) return 'the Host header names no host of this deployment';
  const origin = event.headers.origin;
  if (origin === undefined) return undefined;
  const originHost = hostOf(origin);
  return originHost && hosts.has(originHost) ? undefined : 'the Origin header names a site other than this deployment';
}

/** Revisions 2025-06-18 and later dropped JSON-RPC batches: one message per request. */
function readMessage(event: HttpEvent): { message: unknown } | { refused: HttpResult } {
  const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
  if (Buffer.byteLength(raw) > maxMcpBodyBytes)
    return { refused: jsonRpcError(413, jsonRpcCodes.refused, `the request body exceeds ${maxMcpBodyBytes} bytes`) };
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch {
    return { refused: jsonRpcError(400, jsonRpcCodes.parseError, 'Parse error: the body is not JSON') };
  }
  if (Array.isArray(message))
    return { refused: jsonRpcError(400, jsonRpcCodes.invalidRequest, 'Invalid Request: JSON-RPC batches are not accepted; send one message per request') };
  if (nestsDeeperThan(message, maxInputDepth))
    return { refused: jsonRpcError(400, jsonRpcCodes.invalidRequest, `Invalid Request: the message nests deeper than ${maxInputDepth} levels`) };
  return { message };
}

/**
 * Answers as JSON when the client takes it (one response, no stream to hold open), as an SSE stream when it asks for
 * that only. The SDK's transport wants both listed, so the header it sees says so.
 */
function negotiate(accept: string | undefined): { enableJsonResponse: boolean; accept: string } {
  const wants = (type: string) => (accept ?? '').toLowerCase().includes(type) || (accept ?? '').includes('*/*');
  return { enableJsonResponse: wants('application/json') || !wants('text/event-stream'), accept: 'application/json, text/event-stream' };
}

/**
 * The client's name (its clientInfo at initialize) rides in the Mcp-Session-Id this server hands out, which clients
 * send back on every request: a label the client chose, holding no state here, so any instance can read it.
 */
const sessionPrefix = 'mcp1.';
const maxClientName = 64;

function clientOf(event: HttpEvent, message: unknown): string {
  const initialize = message as { method?: unknown; params?: { clientInfo?: { name?: unknown } } };
  if (initialize.method === 'initialize' && typeof initialize.params?.clientInfo?.name === 'string') return boundedName(initialize.params.clientInfo.name);
  const session = event.headers['mcp-session-id'];
  if (!session?.startsWith(sessionPrefix)) return 'unknown';
  return boundedName(Buffer.from(session.slice(sessionPrefix.length), 'base64url').toString('utf8'));
}

const boundedName = (name: string) => name.replace(/[^\x20-\x7e]/g, '').slice(0, maxClientName) || 'unknown';
const sessionOf = (client: string) => `${sessionPrefix}${Buffer.from(client).toString('base64url')}`;

export interface McpExchange {
  /** A new server for this request, its handlers bound to whoever is calling and the client they call through. */
  server: (session: { client: string }) => Server | Promise<Server>;
}

/** Handles one Streamable HTTP request: GET and DELETE are 405 (no standalone stream, no session to end). */
export async function answerMcp(event: HttpEvent, exchange: McpExchange): Promise<HttpResult> {
  const method = event.requestContext.http.method.toUpperCase();
  if (method !== 'POST') return jsonRpcError(405, jsonRpcCodes.refused, 'Method Not Allowed: this stateless server takes POST only', { Allow: 'POST' });
  const foreign = foreignSite(event);
  if (foreign) return jsonRpcError(403, jsonRpcCodes.refused, `Forbidden: ${foreign}`);
  const read = readMessage(event);
  if ('refused' in read) return read.refused;
  const { enableJsonResponse, accept } = negotiate(event.headers.accept);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
  const client = clientOf(event, read.message);
  const server = await exchange.server({ client });
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(event.headers)) if (value !== undefined) headers.set(name, value);
    headers.set('accept', accept);
    headers.set('content-type', headers.get('content-type') ?? 'application/json');
    const initializes = (read.message as { method?: unknown }).method === 'initialize';
    const url = `https://${event.requestContext.domainName}${event.rawPath}`;
    const response = await transport.handleRequest(new Request(url, { method: 'POST', headers }), { parsedBody: read.message });
    const body = await response.text();
    const answered = Object.fromEntries(response.headers.entries());
    return { statusCode: response.status, headers: { ...answered, ...(initializes && response.ok && { 'Mcp-Session-Id': sessionOf(client) }) }, body };
  } finally {
    await server.close();
  }
}

/**
 * A route serving MCP for the caller its API key authorizer resolved (`apiKey` routes) or for anyone (`public`):
 * without a valid key, 401 with the challenge that points MCP clients at the protected-resource metadata; each
 * request counts against the caller's rate limits like any other.
 */
export function mcpHandler<R extends Route>(
  route: R,
  build: (args: { caller: Caller | undefined; client: string; event: HttpEvent }) => Server | Promise<Server>,
) {
  const handler = async (event: HttpEvent): Promise<HttpResult> =>
    withLogKeys({ requestId: event.requestContext.requestId, operation: route.operation, path: event.rawPath }, async () => {
      const started = performance.now();
      const result = await answerFor(event);
      recordOperation(edgePorts().metrics(), route, result.statusCode ?? 200, performance.now() - started);
      return result;
    });

  async function answerFor(event: HttpEvent): Promise<HttpResult> {
    const caller = authorizerCaller(event);
    if (route.auth === 'apiKey' && !caller && event.requestContext.http.method.toUpperCase() === 'POST') {
      const revoked = event.requestContext.authorizer?.lambda?.reason === 'revoked';
      return jsonRpcError(
        401,
        jsonRpcCodes.refused,
        revoked ? 'Unauthorized: this API key has been revoked' : 'Unauthorized: send Authorization: Bearer <API key or access token>',
        {
          'WWW-Authenticate': `Bearer resource_metadata="${requestBaseUrl(event)}/.well-known/oauth-protected-resource"`,
        },
      );
    }
    if (caller) {
      const state: RequestState = { route, requestId: event.requestContext.requestId, caller, headers: {} };
      try {
        await rateLimit(state, edgePorts().rateLimiter(), { perKey: settings.requestsPerMinute, perUser: settings.userRequestsPerMinute });
      } catch (error) {
        const refusal = error instanceof AppError ? error : new AppError('RATE_LIMITED', 429, 'rate limited');
        return jsonRpcError(refusal.status, jsonRpcCodes.refused, refusal.message, { ...state.headers, ...refusal.headers });
      }
    }
    try {
      return await answerMcp(event, { server: ({ client }) => build({ caller, client, event }) });
    } catch (error) {
      logger.error('mcp request failed', { error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) });
      return jsonRpcError(500, -32603, 'Internal error; quote the X-Request-Id response header to support', { 'X-Request-Id': event.requestContext.requestId });
    }
  }
  return Object.assign(handler, { route });
}
