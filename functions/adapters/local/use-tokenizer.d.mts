/** Makes `tokenizer` (an EmbeddingsModel's) split texts in place, into the ids it gave before (use-tokenizer.mjs). */
export function tokenizeInPlace(tokenizer: { encode(input: string): number[] }): void;
