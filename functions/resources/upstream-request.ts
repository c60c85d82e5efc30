// Turns a method definition and call params into the HTTP request to the resource's endpoint.
import { ValidationError } from '#platform/errors.js';
import type { OutboundRequest } from '#platform/outbound.js';
import { type StoredCredentials, injectCredentials } from './credentials.js';
import { type MethodDefinition, type ParameterLocation, pathPlaceholders } from './method-definitions.js';
import type { Endpoint } from './records.js';

const bodiless = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * Headers a caller's params may not set: credentials are the platform's to inject, `X-Amz-*` would sign or steer
 * an AWS API, and Host and the hop-by-hop headers would re-route or re-frame the request.
 */
const reservedHeaders = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'expect',
]);
const isReservedHeader = (name: string) => reservedHeaders.has(name.toLowerCase()) || name.toLowerCase().startsWith('x-amz-');

const queryValue = (value: unknown) => (typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));

/**
 * The built path keeps its declared place after URL normalisation: under the base URL's path and the method path's
 * fixed start, with as many segments as declared. Checked before credentials are added, whatever the params held.
 */
function checkWithinDeclaredPath(url: URL, base: string, methodPath: string): void {
  const basePath = `${new URL(base).pathname.replace(/\/$/, '')}/`;
  const fixedStart = new URL(`${base}${methodPath.slice(0, methodPath.search(/\{|$/))}`).pathname;
  const declaredSegments = new URL(`${base}${methodPath.replace(/\{[^{}]+\}/g, 'p')}`).pathname.split('/').length;
  if (!url.pathname.startsWith(basePath) || !url.pathname.startsWith(fixedStart) || url.pathname.split('/').length !== declaredSegments) {
    throw new ValidationError(
      'params',
      url.pathname,
      `the path parameters lead to ${url.pathname}, outside the method path ${methodPath} under the resource's base URL`,
    );
  }
}

/**
 * Path placeholders take their params; the rest go where the parameter's `in` says, else to the query string
 * for GET, HEAD, DELETE and OPTIONS and to a JSON body otherwise. Undeclared params pass through the same way.
 */
export function buildUpstreamRequest(
  endpoint: Endpoint,
  method: MethodDefinition,
  params: Record<string, unknown>,
  credentials?: StoredCredentials,
): OutboundRequest & { url: URL } {
  if (!endpoint.baseUrl) throw new ValidationError('endpoint.baseUrl', null, 'this resource has no endpoint.baseUrl to call');
  const placeholders = pathPlaceholders(method.path);
  const path = method.path.replace(/\{([^{}]+)\}/g, (_whole, name: string) => {
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    if (value === undefined || value === null) throw new ValidationError(`params.${name}`, null, `path parameter ${name} is required`);
    return encodeURIComponent(queryValue(value));
  });
  const base = endpoint.baseUrl.replace(/\/+$/, '');
  const url = new URL(`${base}${path}`);
  checkWithinDeclaredPath(url, base, method.path);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'automation-platform/1' };
  // Null-prototype: a param named `__proto__` is a body field, not the body's prototype.
  const body: Record<string, unknown> = Object.create(null);
  const declared = new Map(method.parameters.map((parameter) => [parameter.name, parameter.in]));
  const fallback: ParameterLocation = bodiless.has(method.httpMethod) ? 'query' : 'body';

  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || placeholders.includes(name)) continue;
    const location = declared.get(name) ?? fallback;
    if (location === 'header') {
      if (isReservedHeader(name)) throw new ValidationError(`params.${name}`, name, `the ${name} header is set by the platform; resource calls cannot set it`);
      headers[name] = queryValue(value);
    } else if (location === 'body' && !bodiless.has(method.httpMethod)) body[name] = value;
    else if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, queryValue(item));
    else url.searchParams.set(name, queryValue(value));
  }
  if (credentials) injectCredentials(endpoint, credentials, { headers, query: url.searchParams });

  const hasBody = !bodiless.has(method.httpMethod) && Object.keys(body).length > 0;
  if (hasBody) headers['content-type'] = 'application/json';
  return { url, method: method.httpMethod, headers, ...(hasBody && { body: JSON.stringify(body) }) };
}
