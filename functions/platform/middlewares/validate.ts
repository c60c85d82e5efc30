// Query string, JSON body and path parameters merged into one object and checked against the route's zod input. A route
// behind every method reads its own body (an MCP endpoint answers a malformed one in JSON-RPC, not in the envelope).
import type { z } from 'zod';
import type { Route } from '../route.js';
import { parseInput } from '../validation.js';
import { parseForm, parseJson } from './parse.js';
import type { HttpEvent } from './request-state.js';

export type InputOf<R extends Route> = R['input'] extends z.ZodType ? z.output<R['input']> : Record<string, never>;

export function validateInput<R extends Route>(route: R, event: HttpEvent, rawBody: string): InputOf<R> {
  const body = route.method === 'GET' || route.method === 'ANY' ? {} : route.body === 'form' ? parseForm(rawBody) : parseJson(rawBody);
  const source = { ...(event.queryStringParameters ?? {}), ...body, ...(event.pathParameters ?? {}) };
  return (route.input ? parseInput(route.input, source) : {}) as InputOf<R>;
}
