import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../functions/platform/outbound.js';
import { parseCredentials } from '../../functions/resources/credentials.js';
import { checkParams, methodProblems } from '../../functions/resources/method-definitions.js';
import { publishFailures } from '../../functions/resources/publish-checks.js';
import type { Endpoint } from '../../functions/resources/records.js';
import { MethodInput } from '../../functions/resources/schemas.js';
import { buildUpstreamRequest } from '../../functions/resources/upstream-request.js';
import { signatureMatches } from '../../functions/resources/webhook-service.js';

const method = (input: Record<string, unknown>) => MethodInput.parse(input);
const endpoint = (overrides: Partial<Endpoint> = {}): Endpoint => ({
  baseUrl: 'https://api.example.com/v2/',
  authentication: 'none',
  methods: [],
  ...overrides,
});

describe('resources: method definitions', () => {
  it('normalises both dialects to one shape', () => {
    // Act
    const fromMap = method({ name: 'get', method: 'get', path: '/u/{id}', parameters: { id: { type: 'string', required: true, description: 'user' } } });
    const fromArray = method({
      name: 'get',
      httpMethod: 'GET',
      path: '/u/{id}',
      parameters: [{ name: 'id', type: 'string', required: true, description: 'user' }],
    });
    const bare = method({ name: 'ping' });
    // Assess
    expect(fromMap).toEqual(fromArray);
    expect(fromMap).toEqual({
      name: 'get',
      httpMethod: 'GET',
      path: '/u/{id}',
      parameters: [{ name: 'id', type: 'string', required: true, description: 'user' }],
    });
    expect(bare).toEqual({ name: 'ping', httpMethod: 'GET', path: '/', parameters: [] });
  });

  it('finds the problems publish refuses: duplicate names, unknown types, undeclared placeholders, bad header names', () => {
    // Prepare
    const methods = [
      method({ name: 'a', path: '/x/{id}', parameters: { q: { type: 'date' } } }),
      method({ name: 'a', path: 'no-slash', parameters: [{ name: 'bad header', type: 'string', in: 'header' }] }),
      method({ name: 'ok', path: '/ok/{id}', parameters: { id: { type: 'string' }, tags: { type: 'string[]' }, meta: { type: 'object' } } }),
    ];
    // Act
    const problems = methodProblems(methods).map((problem) => problem.field);
    // Assess
    expect(problems).toEqual([
      'endpoint.methods.0.parameters.q.type',
      'endpoint.methods.0.path',
      'endpoint.methods.1.name',
      'endpoint.methods.1.path',
      'endpoint.methods.1.parameters.bad header.name',
    ]);
  });

  it('checks call params against required flags and types, letting undeclared params through', () => {
    // Prepare
    const definition = method({ name: 'm', path: '/a/{id}', parameters: { id: { type: 'string' }, n: { type: 'integer' }, tags: { type: 'string[]' } } });
    // Act
    const check = (params: Record<string, unknown>) => () => checkParams(definition, params);
    // Assess
    expect(check({ id: 'x', n: 3, tags: ['a'], extra: true })).not.toThrow();
    expect(check({ n: 3 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'params.id' }) }));
    expect(check({ id: 'x', n: 2.5 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'params.n', value: 2.5 }) }));
    expect(check({ id: 'x', tags: ['a', 1] })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'params.tags' }) }));
  });
});

describe('resources: upstream requests', () => {
  it('fills path placeholders, puts GET params in the query (arrays repeated) and keeps the base path', () => {
    // Act
    const request = buildUpstreamRequest(endpoint(), method({ name: 'm', path: '/users/{id}/posts', parameters: { id: { type: 'string' } } }), {
      id: 'a/b c',
      tags: ['x', 'y'],
      n: 2,
      filter: { a: 1 },
    });
    // Assess
    expect(request.url.toString()).toBe('https://api.example.com/v2/users/a%2Fb%20c/posts?tags=x&tags=y&n=2&filter=%7B%22a%22%3A1%7D');
    expect(request).toMatchObject({ method: 'GET' });
    expect(request.body).toBeUndefined();
  });

  it('sends POST params as JSON, header params as headers, and query params where declared', () => {
    // Prepare
    const definition = method({
      name: 'm',
      method: 'POST',
      path: '/items',
      parameters: [
        { name: 'X-Trace', type: 'string', in: 'header' },
        { name: 'page', type: 'integer', in: 'query' },
        { name: 'item', type: 'object' },
      ],
    });
    // Act
    const request = buildUpstreamRequest(endpoint(), definition, { 'X-Trace': 't1', page: 2, item: { a: 1 }, note: 'n' });
    // Assess
    expect(request.url.search).toBe('?page=2');
    expect(request.headers).toMatchObject({ 'X-Trace': 't1', 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({ item: { a: 1 }, note: 'n' });
  });

  it.each([
    'Authorization',
    'proxy-authorization',
    'Host',
    'X-Amz-Target',
    'x-amz-security-token',
    'Connection',
    'Transfer-Encoding',
    'Upgrade',
    'Content-Length',
  ])('refuses a caller-set %s header with VALIDATION_ERROR on the param', (name) => {
    // Prepare: the resource's owner declared the header; the caller still may not set it.
    const definition = method({ name: 'm', method: 'POST', path: '/', parameters: [{ name, type: 'string', in: 'header' }] });
    // Act
    const build = () => buildUpstreamRequest(endpoint(), definition, { [name]: 'DynamoDB_20120810.Scan' });
    // Assess
    expect(build).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: expect.objectContaining({ field: `params.${name}` }) }));
  });

  it.each(['.', '..', '%2e', '%2E%2e', '.%2e', '%252e%252e', '../admin', 'a/..', '..%2fadmin', '%2e%2e%5cadmin'])(
    'refuses the path parameter %s before anything is built, with details.field',
    (value) => {
      // Prepare
      const definition = method({ name: 'm', path: '/users/{id}/posts', parameters: { id: { type: 'string', required: true } } });
      // Act
      const check = () => checkParams(definition, { id: value });
      // Assess
      expect(check).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: expect.objectContaining({ field: 'params.id' }) }));
    },
  );

  it.each(['...', 'a..b', 'v1.2', '.hidden', 'a%2Fb'])('takes the path parameter %s, which is no dot segment', (value) => {
    // Prepare
    const definition = method({ name: 'm', path: '/users/{id}/posts', parameters: { id: { type: 'string', required: true } } });
    // Act
    checkParams(definition, { id: value });
    const request = buildUpstreamRequest(endpoint(), definition, { id: value });
    // Assess
    expect(request.url.pathname).toBe(`/v2/users/${encodeURIComponent(value)}/posts`);
  });

  it.each([
    ['..', '/users/{id}'],
    ['.', '/users/{id}/posts'],
  ])('refuses a built path that normalisation moved (%s in %s) before credentials are added', (value, path) => {
    // Prepare: checkParams is bypassed, as a caller of the builder that forgot it would
    const definition = method({ name: 'm', path, parameters: { id: { type: 'string', required: true } } });
    // Act
    const build = () => buildUpstreamRequest(endpoint({ authentication: 'api_key' }), definition, { id: value }, { type: 'api_key', apiKey: 'k' });
    // Assess
    expect(build).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: expect.objectContaining({ field: 'params' }) }));
  });

  it.each([
    [
      'api_key default header',
      endpoint({ authentication: 'api_key' }),
      { type: 'api_key', apiKey: 'k' } as const,
      (r: ReturnType<typeof buildUpstreamRequest>) => r.headers!['X-API-Key'] === 'k',
    ],
    [
      'api_key named header',
      endpoint({ authentication: 'api_key', authConfig: { headerName: 'X-Key' } }),
      { type: 'api_key', apiKey: 'k' } as const,
      (r: ReturnType<typeof buildUpstreamRequest>) => r.headers!['X-Key'] === 'k',
    ],
    [
      'api_key query',
      endpoint({ authentication: 'api_key', authConfig: { queryParam: 'key' } }),
      { type: 'api_key', apiKey: 'k' } as const,
      (r: ReturnType<typeof buildUpstreamRequest>) => r.url.searchParams.get('key') === 'k',
    ],
    [
      'bearer',
      endpoint({ authentication: 'bearer' }),
      { type: 'bearer', token: 't' } as const,
      (r: ReturnType<typeof buildUpstreamRequest>) => r.headers!.Authorization === 'Bearer t',
    ],
    [
      'oauth2',
      endpoint({ authentication: 'oauth2' }),
      { type: 'oauth2', accessToken: 'a' } as const,
      (r: ReturnType<typeof buildUpstreamRequest>) => r.headers!.Authorization === 'Bearer a',
    ],
    [
      'basic',
      endpoint({ authentication: 'basic' }),
      { type: 'basic', username: 'u', password: 'p' } as const,
      (r: ReturnType<typeof buildUpstreamRequest>) => r.headers!.Authorization === `Basic ${btoa('u:p')}`,
    ],
  ])('injects %s credentials', (_label, target, credentials, check) => {
    // Act
    const request = buildUpstreamRequest(target, method({ name: 'm' }), {}, credentials);
    // Assess
    expect(check(request)).toBe(true);
  });
});

describe('resources: credentials', () => {
  it.each([
    ['api_key', { apiKey: 'k' }],
    ['bearer', { token: 't' }],
    ['basic', { username: 'u', password: 'p' }],
    ['oauth2', { clientId: 'c', clientSecret: 's' }],
    ['oauth2', { accessToken: 'a', refreshToken: 'r', expiresAt: '2030-01-01T00:00:00Z' }],
  ] as const)('accepts %s credentials %j', (type, credentials) => {
    // Assess
    expect(parseCredentials(type, credentials)).toEqual({ type, ...credentials });
  });

  it('refuses incomplete or unknown credentials naming the field, never echoing the value', () => {
    // Assess
    expect(() => parseCredentials('oauth2', { clientId: 'only-the-id' })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'credentials', value: '[redacted]' }) }),
    );
    expect(() => parseCredentials('bearer', { token: 'x', leaked: 'secret' })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'credentials.leaked', value: '[redacted]' }) }),
    );
  });
});

describe('resources: webhook signatures', () => {
  const body = Buffer.from('{"type":"payment.completed"}');
  const hex = createHmac('sha256', 'whsec_1').update(body).digest('hex');

  it.each([
    [`sha256=${hex}`, true],
    [hex, true],
    [hex.toUpperCase(), true],
    [`sha256=${hex.slice(0, 62)}`, false],
    ['sha256=zz', false],
    [undefined, false],
    [createHmac('sha256', 'whsec_2').update(body).digest('hex'), false],
  ])('checks %s -> %s', (presented, expected) => {
    // Assess
    expect(signatureMatches(body, 'whsec_1', presented)).toBe(expected);
  });
});

describe('outbound: private addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['2606:4700::1111', false],
    ['::ffff:8.8.8.8', false],
    ['not-an-ip', true],
  ])('%s is private: %s', (address, expected) => {
    // Assess
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('resources: publish checks', () => {
  const candidate = {
    name: 'n',
    description: 'd',
    resourceType: 'api' as const,
    endpoint: endpoint({ methods: [method({ name: 'm', path: '/m' })] }),
    openApiSpec: { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/m': { get: { responses: { '200': { description: 'ok' } } } } } },
  };

  it('passes a complete resource', async () => {
    // Assess
    await expect(publishFailures(candidate)).resolves.toEqual([]);
  });

  it('validates the OpenAPI document with a real parser, never resolving external references', async () => {
    // Act
    const invalid = await publishFailures({ ...candidate, openApiSpec: { ...candidate.openApiSpec, paths: { '/m': { get: { responses: 'none' } } } } });
    const external = await publishFailures({ ...candidate, openApiSpec: { ...candidate.openApiSpec, paths: { '/m': { $ref: 'file:///etc/passwd' } } } });
    // Assess
    expect(invalid).toEqual([expect.objectContaining({ check: 'openApiSpec', message: expect.stringContaining('not a valid OpenAPI 3.0 document') })]);
    expect(external.every((failure) => !failure.message.includes('root:'))).toBe(true);
  });

  it('needs authUrl and tokenUrl for oauth2 and a baseUrl for API resources', async () => {
    // Act
    const failures = await publishFailures({ ...candidate, endpoint: { ...candidate.endpoint, baseUrl: undefined, authentication: 'oauth2' } });
    // Assess
    expect(failures.map((failure) => failure.field)).toEqual(['endpoint.baseUrl', 'endpoint.authConfig.authUrl', 'endpoint.authConfig.tokenUrl']);
  });
});
