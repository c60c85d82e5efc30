// The platform's OpenAPI 3 document, derived from the route table and its zod schemas.
import { z } from 'zod';
import type { Route } from './route.js';

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; [key: string]: unknown };

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;
  return json;
};

const errorEnvelope: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object', additionalProperties: true } },
    },
  },
};

const security: Record<Route['auth'], Array<Record<string, string[]>>> = {
  apiKey: [{ ApiKeyHeader: [] }, { BearerKey: [] }],
  admin: [{ AdminKey: [] }],
  public: [],
};

function operation(route: Route) {
  const pathParams = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]!);
  const input = route.input ? toSchema(route.input, 'input') : { type: 'object', properties: {} };
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const inQuery = route.method === 'GET' || route.method === 'DELETE';
  const parameters = Object.entries(properties)
    .filter(([name]) => pathParams.includes(name) || inQuery)
    .map(([name, schema]) => ({ name, in: pathParams.includes(name) ? 'path' : 'query', required: pathParams.includes(name) || required.has(name), schema }));
  const bodyProperties = Object.fromEntries(Object.entries(properties).filter(([name]) => !pathParams.includes(name)));
  const bodyRequired = [...required].filter((name) => !pathParams.includes(name));
  const success = String(route.successStatus ?? 200);
  const data = route.output ? toSchema(route.output, 'output') : { type: 'object', additionalProperties: true };
  return {
    operationId: route.operation,
    summary: route.summary,
    tags: [route.area],
    security: security[route.auth],
    /** OpenAPI 3.0 gives API keys no scopes: the key must hold one of these (or `*`), see docs/security.md. */
    ...(route.scopes && { 'x-required-scopes': route.scopes }),
    ...(parameters.length && { parameters }),
    ...(!inQuery &&
      Object.keys(bodyProperties).length && {
        requestBody: {
          required: bodyRequired.length > 0,
          content: { 'application/json': { schema: { type: 'object', properties: bodyProperties, ...(bodyRequired.length && { required: bodyRequired }) } } },
        },
      }),
    responses: {
      [success]: {
        description: 'success',
        content: { 'application/json': { schema: { type: 'object', required: ['success'], properties: { success: { type: 'boolean', enum: [true] }, data, message: { type: 'string' } } } } },
      },
      default: { description: 'error in the envelope of SPEC.md', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    },
  };
}

export function buildOpenApiDocument(routes: Route[], serverUrl: string, version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  return {
    openapi: '3.0.3',
    info: { title: 'Automation marketplace platform API', version, description: 'Generated from functions/routes.ts and the zod schemas of each area.' },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BearerKey: { type: 'http', scheme: 'bearer', description: 'the same API key as a bearer token' },
        AdminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
      },
      schemas: { ErrorEnvelope: errorEnvelope },
    },
  };
}
