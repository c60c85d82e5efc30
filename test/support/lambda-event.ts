// API Gateway v2 events for calling a handler module directly, as the Lambda runtime would.
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { HttpEvent } from '../../functions/platform/http.js';

export function httpEvent(options: {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  identity?: { userId: string; keyId: string; scopes: string };
}): HttpEvent {
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: `${options.method} ${options.path}`,
    rawPath: options.path,
    rawQueryString: new URLSearchParams(options.query).toString(),
    headers: { host: 'api.test', ...options.headers },
    queryStringParameters: options.query,
    pathParameters: options.pathParameters,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'api.test',
      domainPrefix: 'api',
      http: { method: options.method, path: options.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId,
      routeKey: `${options.method} ${options.path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
      ...(options.identity && { authorizer: { lambda: options.identity } }),
    },
  };
}

export const lambdaContext = { getRemainingTimeInMillis: () => 29_000, awsRequestId: 'test' } as unknown as Context;
