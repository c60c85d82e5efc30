// x402's `bazaar` discovery extension of a PaymentRequired: how a paid method is called (an HTTP endpoint or an MCP
// tool), the JSON Schemas of its input and output, and a description, with the JSON Schema that validates that info,
// so x402 catalogs can index the marketplace's listings.
import type { MethodForSale } from './resources-port.js';

export type JsonSchema = Record<string, unknown>;

const draft = 'https://json-schema.org/draft/2020-12/schema';

function typeSchema(type: string): JsonSchema {
  if (type.endsWith('[]')) return { type: 'array', items: typeSchema(type.slice(0, -2)) };
  return { type };
}

/** The method's parameters as the JSON Schema of one object of arguments (what an MCP tool declares as `inputSchema`). */
export function parametersSchema(method: MethodForSale): JsonSchema {
  const { parameters } = method.definition;
  const required = parameters.filter((parameter) => parameter.required || parameter.in === 'path').map((parameter) => parameter.name);
  return {
    type: 'object',
    properties: Object.fromEntries(
      parameters.map((parameter) => [parameter.name, { ...typeSchema(parameter.type), ...(parameter.description && { description: parameter.description }) }]),
    ),
    ...(required.length && { required }),
  };
}

const placeholder: Record<string, unknown> = { string: '', number: 0, integer: 0, boolean: false, object: {}, array: [] };

/** Arguments that satisfy `parametersSchema`: each required parameter with a value of its type. */
function exampleArguments(method: MethodForSale): Record<string, unknown> {
  return Object.fromEntries(
    method.definition.parameters
      .filter((parameter) => parameter.required || parameter.in === 'path')
      .map((parameter) => [parameter.name, parameter.type.endsWith('[]') ? [] : (placeholder[parameter.type] ?? '')]),
  );
}

/** A method's declared `response`, when it is a JSON Schema (it names a type or properties). */
function responseSchema(method: MethodForSale): JsonSchema | undefined {
  const response = method.definition.response;
  return response && (typeof response.type === 'string' || typeof response.properties === 'object') ? response : undefined;
}

function output(method: MethodForSale) {
  const schema = responseSchema(method);
  return {
    info: { type: 'json', ...(schema && { schema }) },
    schema: { type: 'object', properties: { type: { type: 'string' }, schema: { type: 'object' } }, required: ['type'] },
  };
}

export interface BazaarExtension {
  info: { input: Record<string, unknown>; output: Record<string, unknown> };
  schema: JsonSchema;
}

/** The extension for one way of calling `method`: `input` as the catalog reads it, `inputSchema` the JSON Schema of that `input`. */
function discovery(method: MethodForSale, input: Record<string, unknown>, inputSchema: { properties: JsonSchema; required: string[] }): BazaarExtension {
  const out = output(method);
  return {
    info: { input, output: out.info },
    schema: {
      $schema: draft,
      type: 'object',
      properties: { input: { type: 'object', ...inputSchema, additionalProperties: false }, output: out.schema },
      required: ['input'],
    },
  };
}

/** The paid call over HTTP: a JSON body of the method's parameters posted to the paid-call URL. */
export const httpDiscovery = (method: MethodForSale): BazaarExtension =>
  discovery(
    method,
    { type: 'http', method: 'POST', bodyType: 'json', body: exampleArguments(method) },
    {
      properties: {
        type: { type: 'string', const: 'http' },
        method: { type: 'string', enum: ['POST'] },
        bodyType: { type: 'string', enum: ['json'] },
        body: parametersSchema(method),
      },
      required: ['type', 'method', 'bodyType', 'body'],
    },
  );

/** The paid call as a tool of the marketplace's MCP server. */
export const mcpDiscovery = (tool: { name: string; description: string; inputSchema: JsonSchema }, method: MethodForSale): BazaarExtension =>
  discovery(
    method,
    {
      type: 'mcp',
      tool: tool.name,
      description: tool.description,
      transport: 'streamable-http',
      inputSchema: tool.inputSchema,
      example: exampleArguments(method),
    },
    {
      properties: {
        type: { type: 'string', const: 'mcp' },
        tool: { type: 'string', const: tool.name },
        description: { type: 'string' },
        transport: { type: 'string', enum: ['streamable-http', 'sse'] },
        inputSchema: { type: 'object' },
        example: tool.inputSchema,
      },
      required: ['type', 'tool', 'inputSchema'],
    },
  );
