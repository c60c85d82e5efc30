// A resource method in its one normalised form, the checks publish runs on it, and the check of call params against it.
import { ValidationError } from '#platform/errors.js';

export type ParameterLocation = 'path' | 'query' | 'body' | 'header';

export interface ParameterDefinition {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  in?: ParameterLocation;
}

export interface MethodDefinition {
  name: string;
  httpMethod: string;
  path: string;
  description?: string;
  parameters: ParameterDefinition[];
  response?: Record<string, unknown>;
  cost?: number;
}

type ParameterFields = Omit<ParameterDefinition, 'name'>;

export interface MethodInputShape {
  name: string;
  httpMethod?: string;
  method?: string;
  path: string;
  description?: string;
  parameters?: Array<ParameterFields & { name: string }> | Record<string, ParameterFields>;
  response?: Record<string, unknown>;
  cost?: number;
}

/** `httpMethod` or `method` (GET when neither), parameters as a map or an array: one shape out. */
export function normalizeMethod(input: MethodInputShape): MethodDefinition {
  const parameters = Array.isArray(input.parameters) ? input.parameters : Object.entries(input.parameters ?? {}).map(([name, spec]) => ({ name, ...spec }));
  return {
    name: input.name,
    httpMethod: input.httpMethod ?? input.method ?? 'GET',
    path: input.path,
    ...(input.description !== undefined && { description: input.description }),
    parameters: parameters.map(({ name, type, required, description, in: location }) => ({
      name,
      type,
      required,
      ...(description !== undefined && { description }),
      ...(location && { in: location }),
    })),
    ...(input.response && { response: input.response }),
    ...(input.cost !== undefined && { cost: input.cost }),
  };
}

const scalarTypes = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;
const itemTypes = ['string', 'number', 'integer', 'boolean', 'object'];
const isKnownType = (type: string) => (scalarTypes as readonly string[]).includes(type) || (type.endsWith('[]') && itemTypes.includes(type.slice(0, -2)));

/** Scripts reach methods as `resources[name].<method>(params)`. */
const methodName = /^[A-Za-z_$][A-Za-z0-9_$.-]{0,99}$/;
const headerName = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
export const pathPlaceholders = (path: string) => [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!);

export interface MethodProblem {
  field: string;
  message: string;
}

/** Publish check "every method's parameter schema valid": the first problem of each kind, with where it is. */
export function methodProblems(methods: MethodDefinition[], fieldPrefix = 'endpoint.methods'): MethodProblem[] {
  const problems: MethodProblem[] = [];
  const seen = new Set<string>();
  methods.forEach((method, index) => {
    const at = `${fieldPrefix}.${index}`;
    if (!methodName.test(method.name))
      problems.push({
        field: `${at}.name`,
        message: `method name ${JSON.stringify(method.name)} must start with a letter, _ or $ and hold letters, digits, _ $ . - only`,
      });
    if (seen.has(method.name)) problems.push({ field: `${at}.name`, message: `method name ${method.name} is used twice` });
    seen.add(method.name);
    if (!method.path.startsWith('/')) problems.push({ field: `${at}.path`, message: 'path must start with /' });
    const names = new Set<string>();
    method.parameters.forEach((parameter, position) => {
      const where = `${at}.parameters.${parameter.name}`;
      if (names.has(parameter.name)) problems.push({ field: where, message: `parameter ${parameter.name} is declared twice` });
      names.add(parameter.name);
      if (!isKnownType(parameter.type)) {
        problems.push({
          field: `${where}.type`,
          message: `type ${JSON.stringify(parameter.type)} is not one of ${scalarTypes.join(', ')} or <type>[] (parameter ${position + 1})`,
        });
      }
      if (parameter.in === 'header' && !headerName.test(parameter.name))
        problems.push({ field: `${where}.name`, message: `header parameter ${parameter.name} is not an HTTP header name` });
      if (parameter.in === 'path' && !pathPlaceholders(method.path).includes(parameter.name)) {
        problems.push({ field: `${where}.in`, message: `path parameter ${parameter.name} has no {${parameter.name}} in the path` });
      }
    });
    for (const placeholder of pathPlaceholders(method.path)) {
      if (!names.has(placeholder)) problems.push({ field: `${at}.path`, message: `path placeholder {${placeholder}} is not a declared parameter` });
    }
  });
  return problems;
}

function matchesType(value: unknown, type: string): boolean {
  if (type.endsWith('[]')) return Array.isArray(value) && value.every((item) => matchesType(item, type.slice(0, -2)));
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    default:
      return true;
  }
}

/** An upstream that decodes more often than this is not defended against; more passes would let a long value cost O(n²). */
const maxDecodes = 3;

/** Each decoding an upstream might apply, percent-escapes read byte by byte: `%2e`, `%252E` and `.%2e` all end as dots. */
function decodings(text: string): string[] {
  const forms = [text];
  for (let pass = 0; pass < maxDecodes && forms.at(-1)!.includes('%'); pass++) {
    forms.push(forms.at(-1)!.replace(/%([0-9a-f]{2})/gi, (_whole, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))));
  }
  return forms;
}

/**
 * A path parameter that is, or decodes to, `.` or `..` (alone or between slashes): after URL normalisation, here or at
 * an upstream that decodes once more, it would leave the declared method path with the owner's credentials attached.
 */
const isDotSegmentValue = (value: unknown) =>
  typeof value === 'string' && decodings(value).some((form) => form.split(/[\\/]/).some((segment) => segment === '.' || segment === '..'));

/**
 * Declared parameters must be present when required (path placeholders always are) and of their type; others pass
 * through. Path parameters may not be dot segments.
 */
export function checkParams(method: MethodDefinition, params: Record<string, unknown>): void {
  const placeholders = pathPlaceholders(method.path);
  for (const name of placeholders) {
    if (Object.hasOwn(params, name) && isDotSegmentValue(params[name])) {
      throw new ValidationError(`params.${name}`, params[name], `path parameter ${name} may not be or decode to a . or .. path segment`);
    }
  }
  for (const parameter of method.parameters) {
    const value = Object.hasOwn(params, parameter.name) ? params[parameter.name] : undefined;
    if (value === undefined || value === null) {
      if (parameter.required || placeholders.includes(parameter.name)) {
        throw new ValidationError(`params.${parameter.name}`, value ?? null, `method ${method.name} requires parameter ${parameter.name} (${parameter.type})`);
      }
      continue;
    }
    if (!matchesType(value, parameter.type)) {
      throw new ValidationError(`params.${parameter.name}`, value, `parameter ${parameter.name} of method ${method.name} must be of type ${parameter.type}`);
    }
  }
}
