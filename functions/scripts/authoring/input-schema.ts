// A script's optional `config.inputSchema`: the JSON Schema its MCP tool declares and checks arguments against. Bounded
// (size, depth, no regular expressions) because whoever installs the script compiles and runs it against their input.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import * as z from 'zod';
import { nestsDeeperThan } from '#platform/json-bounds.js';

export const maxInputSchemaBytes = 16 * 1024;
export const maxInputSchemaDepth = 12;
/** Patterns run user regular expressions on every call (catastrophic backtracking); formats are not needed for tools. */
const refusedKeywords = new Set(['pattern', 'patternProperties', 'format', '$ref', '$dynamicRef', '$id']);

function refusedKeyword(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object') continue;
    for (const [key, child] of Object.entries(current)) {
      if (!Array.isArray(current) && refusedKeywords.has(key)) return key;
      stack.push(child);
    }
  }
  return undefined;
}

function compiles(schema: Record<string, unknown>): boolean {
  try {
    new AjvJsonSchemaValidator().getValidator(schema);
    return true;
  } catch {
    return false;
  }
}

export const InputSchema = z
  .record(z.string(), z.unknown())
  .superRefine((schema, context) => {
    const problem = (message: string) => context.addIssue({ code: 'custom', message });
    if (Buffer.byteLength(JSON.stringify(schema)) > maxInputSchemaBytes) return problem(`must be at most ${maxInputSchemaBytes} bytes of JSON`);
    if (nestsDeeperThan(schema, maxInputSchemaDepth)) return problem(`must nest at most ${maxInputSchemaDepth} levels`);
    if (schema.type !== 'object') return problem('must describe an object: {"type": "object", "properties": {...}}');
    const keyword = refusedKeyword(schema);
    if (keyword) return problem(`the keyword ${keyword} is not accepted (no patterns, formats or references)`);
    if (!compiles(schema)) return problem('must be a valid JSON Schema');
  })
  .describe("JSON Schema (type object) of the run's data: the input schema of the script's MCP tool; at most 16 KB, no pattern, format or $ref");
