// The request's raw body (413 past Lambda's payload limit) and its JSON object (400 when malformed, too deep or not an
// object).
import { PayloadTooLargeError, ValidationError } from '../errors.js';
import { parseBoundedJson } from '../validation.js';
import type { HttpEvent } from './request-state.js';

/** Lambda's synchronous invocation payload limit. */
export const maxBodyBytes = 6 * 1024 * 1024;

export function readBody(event: HttpEvent): string {
  if (!event.body) return '';
  const body = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const size = Buffer.byteLength(body);
  if (size > maxBodyBytes) throw new PayloadTooLargeError(size, maxBodyBytes);
  return body;
}

export function parseJson(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  const parsed = parseBoundedJson(raw, 'body');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('body', parsed, 'the JSON body must be an object');
  }
  return parsed as Record<string, unknown>;
}

/** A form body as an object; a repeated field keeps its values comma-joined, as API Gateway joins repeated query parameters. */
export function parseForm(raw: string): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw)) fields.set(name, fields.has(name) ? `${fields.get(name)},${value}` : value);
  return Object.fromEntries(fields);
}
