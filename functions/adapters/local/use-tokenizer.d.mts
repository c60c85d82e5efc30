/** A tokenizer for the embedding model's vocabulary ([piece, score] by id), giving the package's ids (use-tokenizer.mjs). */
export function createTokenizer(vocabulary: Array<[string, number]>): { encode(input: string): number[] };
