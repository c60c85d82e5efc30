// Reported `score`: the raw cosine similarity through a monotonic, piecewise-linear map per embedding model, so that
// SPEC.md's default threshold of 0.7 means "relevant" whichever model is in use. Raw cosines of a question and the
// passage that answers it sit around 0.5-0.7 for Universal Sentence Encoder lite, unrelated text below 0.25; the map
// sends the fitted relevance cut to 0.7, keeps low similarities as they are and 1 at 1, so the score stays a
// similarity in [0, 1]. Knots come from functions/documents/eval/fit-calibration.ts over the evaluation set.
import { defaultSearchThreshold } from './limits.js';

/** [raw cosine, score] pairs, both strictly increasing, from [0, 0] to [1, 1]. */
export type Knots = ReadonlyArray<readonly [number, number]>;

/** The fitted relevance cut maps to SPEC.md's default threshold. */
export const knotsFor = (rawCut: number): Knots => [[0, 0], [0.25, 0.25], [rawCut, defaultSearchThreshold], [1, 1]];

const calibrations: Record<string, Knots> = {
  // Fitted on the evaluation set (40 questions x 26 passages): recall 0.90, precision 0.77 at raw 0.50.
  'universal-sentence-encoder-lite': knotsFor(0.5),
  // Provisional: this machine has no Bedrock access; refit with `fit-calibration.ts --embedder bedrock` on AWS.
  'amazon.titan-embed-text-v2:0': knotsFor(0.45),
};

export function knotsOf(modelId: string): Knots {
  const knots = calibrations[modelId];
  if (!knots) throw new Error(`no calibration for embedding model ${modelId}`);
  return knots;
}

function interpolate(knots: Knots, value: number, from: 0 | 1, to: 0 | 1): number {
  const clamped = Math.min(1, Math.max(0, value));
  for (let i = 1; i < knots.length; i++) {
    const low = knots[i - 1]!;
    const high = knots[i]!;
    if (clamped <= high[from]) return low[to] + ((clamped - low[from]) / (high[from] - low[from])) * (high[to] - low[to]);
  }
  return 1;
}

/** Raw cosine (any value in [-1, 1]) to the reported score in [0, 1]. */
export const toScore = (knots: Knots, similarity: number) => interpolate(knots, similarity, 0, 1);

/** The raw cosine at which the score reaches `score`: lets the index filter before calibrating. */
export const toSimilarity = (knots: Knots, score: number) => (score <= 0 ? -1 : interpolate(knots, score, 1, 0));
