// The request's raw body (413 past Lambda's payload limit) and its JSON object (400 when malformed or not an object).
import { PayloadTooLargeError, ValidationError } from '../errors.js';
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
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ValidationError('body', raw.slice(0, 200), `malformed JSON body: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('body', parsed, 'the JSON body must be an object');
  }
  return parsed as Record<string, unknown>;
}
