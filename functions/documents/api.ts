// The documents area's facade: search over a caller's documents for other areas (an agent's documents.search tool),
// with the input rules and defaults of POST /api/sdk/v1/documents/search.
import * as z from 'zod';
import type { Caller } from '#platform/caller.js';
import { parseInput } from '#platform/validation.js';
import { SearchInput } from './schemas.js';
import type { DocumentService } from './service.js';

/** SearchInput as JSON Schema, as a client sends it (defaults optional); the graph id's decoding is the server's. */
const { $schema: _dialect, ...searchInputSchema } = z.toJSONSchema(SearchInput, { io: 'input', unrepresentable: 'any' });

export function createDocumentsApi(service: Pick<DocumentService, 'search'>) {
  return {
    searchInputSchema: searchInputSchema as { type: 'object'; [key: string]: unknown },
    search: (caller: Caller, input: unknown) => service.search(caller, parseInput(SearchInput, input)),
  };
}

export type DocumentsApi = ReturnType<typeof createDocumentsApi>;
