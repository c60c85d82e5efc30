// The platform's OpenAPI 3 document, derived from the route table and its zod schemas: summaries and descriptions,
// required scopes, request and response examples, and the error responses each route can give.
import { sample } from 'openapi-sampler';
import * as z from 'zod';
import { webhookDeliveryHeaders } from './middlewares/idempotency.js';
import type { Route } from './route.js';
import { openApiComponents } from './schemas.js';

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; [key: string]: unknown };

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;
  return json;
};

/** The named shapes the areas registered (condition trees); `$id` is JSON Schema, not OpenAPI 3.0. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(openApiComponents, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(Object.entries(schemas).map(([id, { $id: _ignored, ...schema }]) => [id, schema]));
}

const exampleOf = (schema: JsonSchema, components: Record<string, JsonSchema>): unknown =>
  sample(schema as never, { skipReadOnly: true, quiet: true }, { components: { schemas: components } } as never);

const errorEnvelope: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'stable machine-readable code, e.g. VALIDATION_ERROR' },
        message: { type: 'string', description: 'what went wrong and, where there is one, the call to make next' },
        details: { type: 'object', additionalProperties: true, description: 'for VALIDATION_ERROR: `field` and `value` of the offending input' },
      },
    },
  },
};

const security: Record<Route['auth'], Array<Record<string, string[]>>> = {
  apiKey: [{ ApiKeyHeader: [] }, { BearerKey: [] }],
  admin: [{ AdminKey: [] }],
  public: [],
};

const authText: Record<Route['auth'], string> = {
  apiKey:
    'Authenticated with an API key (`X-API-Key: <key>` or `Authorization: Bearer <key>`); 1000 requests per minute per key, reported in the `X-RateLimit-*` headers.',
  admin: 'Authenticated with the admin key (`X-Admin-Key`).',
  public: 'No authentication.',
};

function errorResponse(code: string, description: string, message: string, details?: Record<string, unknown>) {
  return {
    description,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        example: { success: false, error: { code, message, ...(details && { details }) } },
      },
    },
  };
}

/** A protocol endpoint's own error shapes (RouteSpec.errorFormat). */
const protocolErrors = {
  jsonRpc: {
    description: 'a JSON-RPC 2.0 error: -32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params',
    schema: {
      type: 'object',
      required: ['jsonrpc', 'error'],
      properties: {
        jsonrpc: { type: 'string', enum: ['2.0'] },
        id: { nullable: true, oneOf: [{ type: 'string' }, { type: 'number' }] },
        error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
      },
    },
    example: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' } },
  },
  oauth: {
    description: 'an OAuth error (RFC 6749 §5.2, RFC 7591 §3.2.2): `error` is the code, `error_description` says why',
    schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
    example: { error: 'invalid_request', error_description: 'grant_type is required' },
  },
} as const;

/** The error answers a route can give, from what it declares: input, authentication, scopes, path parameters. */
function errorResponses(route: Route, pathParams: string[], components: Record<string, JsonSchema>) {
  const responses: Record<string, unknown> = {};
  if (route.errorFormat) {
    const { description, schema, example } = protocolErrors[route.errorFormat];
    responses['400'] = { description, content: { 'application/json': { schema, example } } };
  }
  if (route.input && !route.errorFormat)
    responses['400'] = errorResponse(
      'VALIDATION_ERROR',
      'invalid input: `details.field` names it, nothing was changed',
      'name: Too small: expected string to have >=1 characters',
      { field: 'name', value: '' },
    );
  if (route.auth !== 'public') responses['401'] = errorResponse('UNAUTHORIZED', 'missing, unknown or revoked key', 'a valid API key is required');
  if (route.scopes?.length) {
    responses['403'] = errorResponse(
      'FORBIDDEN',
      `the key holds neither \`*\` nor ${route.scopes.map((scope) => `\`${scope}\``).join(' or ')}`,
      `this API key lacks the scope ${route.scopes.join(' or ')}`,
      { requiredScopes: route.scopes },
    );
  }
  if (pathParams.length)
    responses['404'] = errorResponse('NOT_FOUND', "no such object, or another user's private one", `${pathParams[0]} not found`, { [pathParams[0]!]: 'x' });
  if (route.paymentRequired) {
    const schema = toSchema(route.paymentRequired, 'output');
    responses['402'] = {
      description: 'payment required: pay one of `accepts` and repeat the request with `X-PAYMENT`',
      content: { 'application/json': { schema, example: exampleOf(schema, components) } },
    };
  }
  if (route.idempotency)
    responses['409'] = errorResponse(
      'CONFLICT',
      'the key was used within 24 hours for a request with other content, or its first request is still being answered',
      'Idempotency-Key k-1 was used within 24 hours for a request with other content',
      { field: 'Idempotency-Key', value: 'k-1' },
    );
  if (route.auth === 'apiKey')
    responses['429'] = errorResponse('RATE_LIMITED', 'too many requests: wait `Retry-After` seconds', 'rate limit of 1000 requests per minute exceeded', {
      limit: 1000,
      retryAfter: 12,
    });
  responses['500'] = errorResponse(
    'INTERNAL_ERROR',
    'unexpected failure: quote the `X-Request-Id` response header',
    'internal error; quote the X-Request-Id response header to support',
  );
  return responses;
}

function describe(route: Route): string {
  const scopes = route.scopes?.length
    ? `Required scope: \`*\` or ${route.scopes.map((scope) => `\`${scope}\``).join(' or ')}.`
    : route.auth === 'apiKey'
      ? 'Any scope.'
      : '';
  return [route.description ?? `${route.summary}.`, authText[route.auth], scopes].filter(Boolean).join('\n\n');
}

const idempotencyText = {
  caller:
    'Repeats with the same key (1-255 printable ASCII characters) by the same caller within 24 hours answer the first answer, with `Idempotent-Replayed: true`, and run nothing; the same key with another body is CONFLICT.',
  webhookDelivery: "The sender's delivery id: a redelivery within 24 hours answers the first answer and publishes nothing.",
};

/** The headers a repeated request is known by (middlewares/idempotency.ts). */
function idempotencyParameters(route: Route) {
  if (!route.idempotency) return [];
  const names = route.idempotency === 'caller' ? ['Idempotency-Key'] : webhookDeliveryHeaders;
  return names.map((name) => ({
    name,
    in: 'header',
    required: false,
    description: idempotencyText[route.idempotency!],
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]+$' },
  }));
}

function operation(route: Route, components: Record<string, JsonSchema>) {
  const pathParams = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]!);
  const input = route.input ? toSchema(route.input, 'input') : { type: 'object', properties: {} };
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const inQuery = route.method === 'GET' || route.method === 'DELETE';
  const parameters = [
    ...Object.entries(properties)
      .filter(([name]) => pathParams.includes(name) || inQuery)
      .map(([name, schema]) => ({ name, in: pathParams.includes(name) ? 'path' : 'query', required: pathParams.includes(name) || required.has(name), schema })),
    ...idempotencyParameters(route),
  ];
  const bodyProperties = Object.fromEntries(Object.entries(properties).filter(([name]) => !pathParams.includes(name)));
  const bodyRequired = [...required].filter((name) => !pathParams.includes(name));
  const bodySchema = { type: 'object', properties: bodyProperties, ...(bodyRequired.length && { required: bodyRequired }) };
  const success = String(route.successStatus ?? 200);
  const data = route.output ? toSchema(route.output, 'output') : { type: 'object', additionalProperties: true };
  const successSchema = {
    type: 'object',
    required: ['success'],
    properties: { success: { type: 'boolean', enum: [true] }, data, message: { type: 'string' } },
  };
  const acceptedSchema = route.accepted && {
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { type: 'boolean', enum: [true] }, data: toSchema(route.accepted.output, 'output') },
  };
  return {
    operationId: route.operation,
    summary: route.summary,
    description: describe(route),
    tags: [route.area],
    security: security[route.auth],
    /** OpenAPI 3.0 gives API keys no scopes: the key must hold one of these (or `*`), see docs/security.md. */
    ...(route.scopes && { 'x-required-scopes': route.scopes }),
    /** Errors in a protocol's own shape instead of the envelope (JSON-RPC 2.0 or OAuth). */
    ...(route.errorFormat && { 'x-error-format': route.errorFormat }),
    ...(parameters.length && { parameters }),
    ...(!inQuery &&
      Object.keys(bodyProperties).length && {
        requestBody: { required: bodyRequired.length > 0, content: { 'application/json': { schema: bodySchema, example: exampleOf(bodySchema, components) } } },
      }),
    responses: {
      [success]: route.eventStream
        ? { description: 'server-sent events', content: { 'text/event-stream': { schema: { type: 'string' }, example: eventStreamExample } } }
        : { description: 'success', content: { 'application/json': { schema: successSchema, example: exampleOf(successSchema, components) } } },
      ...(acceptedSchema && {
        '202': {
          description: route.accepted!.description,
          content: { 'application/json': { schema: acceptedSchema, example: exampleOf(acceptedSchema, components) } },
        },
      }),
      ...errorResponses(route, pathParams, components),
    },
  };
}

const eventStreamExample =
  'retry: 1000\n\nevent: log\nid: 1.-.-\ndata: {"index":0,"text":"charging o-1","invocation":1,"step":"charge"}\n\n' +
  'event: status\nid: 1.-.completed\ndata: {"status":"completed"}\n\n' +
  'event: end\nid: 1.-.completed\ndata: {"status":"completed","error":null,"duration":42,"endedAt":"2026-01-01T00:00:00.000Z"}\n\n';

export function buildOpenApiDocument(routes: Route[], serverUrl: string, version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const components = componentSchemas();
  for (const route of routes) (paths[route.path] ??= {})[route.method === 'ANY' ? 'post' : route.method.toLowerCase()] = operation(route, components);
  return {
    openapi: '3.0.3',
    info: {
      title: 'Automation marketplace platform API',
      version,
      description:
        'Resources, scripts, flows, events, documents, marketplace and x402 payments. Every JSON answer is an envelope: `{success: true, data}` or `{success: false, error: {code, message, details?}}`. Lists take `limit` (at most 100) and `offset`. Durations are in milliseconds, costs in US dollars, times ISO 8601 in UTC.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BearerKey: { type: 'http', scheme: 'bearer', description: 'the same API key as a bearer token' },
        AdminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
      },
      schemas: { ErrorEnvelope: errorEnvelope, ...components },
    },
  };
}
