// Local stand-in for API Gateway: each HTTP request becomes the same v2 event API Gateway would send,
// goes through the same authorizer, and reaches the same handler module.
import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import type { APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { AppError, PayloadTooLargeError } from '#platform/errors.js';
import { logger, withLogKeys } from '#platform/logger.js';
import { type HttpEvent, type HttpResult, errorResult, maxBodyBytes } from '#platform/http.js';
import { type Route, type TableAccess, routeTables } from '#platform/route.js';
import { type TableGrant, tableGrant, withGrantedTables } from '#platform/dynamo.js';
import { routeFallback } from '#platform/fallback.js';
import { type Chunks, type StreamedResult, streamedChunks } from '#platform/event-stream.js';
import { createRouteMatcher } from '#platform/route-match.js';
import { boundedEcho } from '#platform/json-bounds.js';
import type { LocalHosts } from './local-hosts.js';
import { tallyStoreCalls } from './store-calls.js';

type Handler = (event: HttpEvent, context: Context) => Promise<HttpResult>;
type Authorizer = (event: APIGatewayRequestAuthorizerEventV2) => Promise<{ isAuthorized: boolean; context?: Record<string, unknown> }>;

export interface LocalApiOptions {
  routes: Route[];
  rootDir: string;
  authorizerHandler: string;
  /** The names this server answers; any other `Host` gets 421 before anything else looks at the request. */
  hosts: LocalHosts;
  /** The tables the authorizer is granted; each handler gets its route's (routeTables), as on AWS. */
  authorizerTables: Record<string, TableAccess>;
  /** Answers requests for template sites (`<sub>.localhost`, `/pages/<sub>/`) before routing; true when it did. */
  pages?: (request: IncomingMessage, response: ServerResponse) => boolean;
  /** Answers the web console's static files (paths outside the API's) after template sites; true when it did. */
  console?: (request: IncomingMessage, response: ServerResponse) => boolean;
}

const textTypes = /^(application\/(json|x-www-form-urlencoded|xml|[\w.+-]+\+json)|text\/)/i;

async function load<T>(rootDir: string, modulePath: string): Promise<T> {
  const module = (await import(pathToFileURL(`${rootDir}/${modulePath}`).href)) as { handler: T };
  if (typeof module.handler !== 'function') throw new Error(`${modulePath} exports no handler`);
  return module.handler;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return reject(new PayloadTooLargeError(declared, maxBodyBytes));
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.removeAllListeners('data');
        request.resume();
        reject(new PayloadTooLargeError(size, maxBodyBytes));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** API Gateway joins repeated headers and query parameters with commas; a Map, as `?constructor=x` is a name like any other. */
function joinValues(entries: Iterable<[string, string | string[] | undefined]>): Record<string, string> {
  const joined = new Map<string, string>();
  for (const [key, value] of entries) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : value;
    const before = joined.get(key);
    joined.set(key, before === undefined ? text : `${before},${text}`);
  }
  return Object.fromEntries(joined);
}

function lambdaContext(name: string, requestId: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(response: ServerResponse, result: HttpResult) {
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(result.headers ?? {})) headers[key] = String(value);
  if (result.cookies?.length) headers['Set-Cookie'] = result.cookies;
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  headers['Content-Length'] = String(Buffer.byteLength(body));
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}

/** Writes each chunk as it comes; a client that goes away stops the producer (its `finally` releases what it holds). */
async function pipeChunks(response: ServerResponse, result: HttpResult, chunks: Chunks) {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(result.headers ?? {})) headers[key] = String(value);
  const gone = new AbortController();
  response.once('close', () => gone.abort());
  response.writeHead(result.statusCode ?? 200, headers);
  response.flushHeaders();
  for await (const chunk of chunks(gone.signal)) {
    if (response.destroyed) break;
    response.write(chunk);
  }
  response.end();
}

export async function createLocalApi(options: LocalApiOptions): Promise<Server> {
  const match = createRouteMatcher(options.routes);
  const fallbackResult = routeFallback(options.routes);
  const functions = new Map<Route, { handler: Handler; grant: TableGrant }>();
  for (const route of options.routes)
    functions.set(route, { handler: await load<Handler>(options.rootDir, route.handler), grant: tableGrant(route.operation, Object.keys(routeTables(route))) });
  const authorize = await load<Authorizer>(options.rootDir, options.authorizerHandler);
  const authorizerGrant = tableGrant('the API key authorizer', Object.keys(options.authorizerTables));

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const requestId = randomUUID();
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://local');
    const found = match(method, url.pathname);
    const operation = found.kind === 'found' ? found.route.operation : undefined;
    return withLogKeys({ requestId, path: url.pathname, ...(operation && { operation }) }, async () => {
      // One access line per request, as API Gateway's access log would write it; run in this request's scope (its log
      // keys), since the socket that finishes it may run in another request's context. A plain AsyncResource, since
      // AsyncResource.bind also defines two deprecation-wrapped accessors on every function it binds.
      const started = performance.now();
      const scope = new AsyncResource('LocalApiAccessLine');
      response.once('finish', () =>
        scope.runInAsyncScope(() => logger.info('request', { method, status: response.statusCode, ms: Math.round(performance.now() - started) })),
      );
      if (found.kind !== 'found') return send(response, fallbackResult(method, url.pathname, requestId));
      const { route, pathParameters } = found;
      await tallyStoreCalls(`${route.method} ${route.path}`, requestId, () => dispatch(request, response, requestId, url, route, pathParameters));
    });
  }

  async function dispatch(
    request: IncomingMessage,
    response: ServerResponse,
    requestId: string,
    url: URL,
    route: Route,
    pathParameters: Record<string, string>,
  ) {
    // As API Gateway: the request's own method, whichever the route (an ANY route serves them all).
    const method = request.method ?? route.method;
    let raw: Buffer;
    try {
      raw = await readBody(request);
    } catch (error) {
      response.setHeader('Connection', 'close');
      return send(response, errorResult(error, requestId));
    }
    const headers = joinValues(Object.entries(request.headers).filter(([key]) => key !== 'cookie'));
    const isText = raw.length === 0 || textTypes.test(headers['content-type'] ?? 'application/json');
    const now = new Date();
    const routeKey = `${route.method} ${route.path}`;
    const query = url.searchParams.size ? joinValues(url.searchParams.entries()) : undefined;
    const event: HttpEvent = {
      version: '2.0',
      routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      cookies: request.headers.cookie?.split(/;\s*/),
      headers,
      queryStringParameters: query,
      pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
      requestContext: {
        accountId: 'local',
        apiId: 'local',
        domainName: headers.host ?? 'localhost',
        domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
        http: {
          method,
          path: url.pathname,
          protocol: `HTTP/${request.httpVersion}`,
          sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId,
        routeKey,
        stage: '$default',
        time: now.toUTCString(),
        timeEpoch: now.getTime(),
      },
      body: raw.length ? (isText ? raw.toString('utf8') : raw.toString('base64')) : undefined,
      isBase64Encoded: !isText,
    };
    if (route.auth === 'apiKey') {
      const verdict = await withGrantedTables(authorizerGrant, () =>
        authorize({
          version: '2.0',
          type: 'REQUEST',
          routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${route.method}${route.path}`,
          identitySource: [],
          routeKey,
          rawPath: event.rawPath,
          rawQueryString: event.rawQueryString,
          headers,
          queryStringParameters: query,
          pathParameters: event.pathParameters,
          requestContext: event.requestContext,
        } as unknown as APIGatewayRequestAuthorizerEventV2),
      );
      event.requestContext.authorizer = { lambda: verdict.context ?? {} };
    }
    const { handler, grant } = functions.get(route)!;
    const context = lambdaContext(route.operation, requestId, route.timeoutSeconds ?? 29);
    await withGrantedTables(grant, async () => {
      const result: StreamedResult = await handler(event, context);
      const chunks = result[streamedChunks];
      if (!chunks) return send(response, result);
      await pipeChunks(response, result, chunks);
    });
  }

  return createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
    if (!options.hosts.kindOf(request)) {
      response.setHeader('Connection', 'close');
      const misdirected = new AppError('MISDIRECTED_REQUEST', 421, 'this server does not answer for this Host; use the address npm start printed', {
        host: boundedEcho(request.headers.host ?? ''),
      });
      return send(response, errorResult(misdirected, randomUUID()));
    }
    if (options.pages?.(request, response) || options.console?.(request, response)) return;
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, errorResult(error, 'local'));
      else response.destroy();
    });
  });
}
