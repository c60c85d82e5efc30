// Reported `score`: one number in [0, 1] per (question, chunk) from the embedding similarity and the lexical match,
// through a logistic model fitted per embedding model, so that SPEC.md's default threshold of 0.7 means "likely
// answers the question" whichever model is in use. Neither signal separates answers from near misses alone: raw
// cosines of right answers and of unanswerable questions overlap, and BM25 misses paraphrases. The weights come from
// functions/documents/eval/fit-calibration.ts (logistic regression on the fit half of the evaluation sets), with the
// intercept moved so that the operating point it chose scores exactly 0.7.
import { defaultSearchThreshold } from './limits.js';

export interface Features {
  /** Raw cosine of question and chunk. */
  similarity: number;
  /** How far the cosine stands out from the question's cosines with every chunk of the graph, in standard deviations. */
  standout: number;
  /** BM25+ of the chunk for the question, 0 when it holds none of its terms. */
  bm25: number;
  /** Share of the question's distinct terms the chunk holds, weighted by their rarity. */
  coverage: number;
}

export interface Calibration {
  intercept: number;
  similarity: number;
  standout: number;
  coverage: number;
  /** Weight of log(1 + bm25). */
  bm25: number;
}

/** The model's inputs, in the order of the weights after the intercept. */
export const featureVector = (features: Features): number[] => [features.similarity, features.standout, features.coverage, Math.log1p(features.bm25)];

const calibrations: Record<string, Calibration> = {
  // `npx tsx functions/documents/eval/fit-calibration.ts`: USE lite + BM25, fit half of both evaluation sets.
  'universal-sentence-encoder-lite': { intercept: -5.645, similarity: 1.195, standout: 2.011, coverage: 1.699, bm25: 0.94 },
  // Provisional: this machine has no Bedrock access, so Titan v2 takes USE lite's weights; its cosines differ in scale
  // but the standout, coverage and BM25 terms, which carry most of the weight, do not depend on the model.
  // Refit with `fit-calibration.ts --embedder bedrock` on AWS and replace these weights.
  'amazon.titan-embed-text-v2:0': { intercept: -5.645, similarity: 1.195, standout: 2.011, coverage: 1.699, bm25: 0.94 },
};

export function calibrationOf(modelId: string): Calibration {
  const calibration = calibrations[modelId];
  if (!calibration) throw new Error(`no calibration for embedding model ${modelId}`);
  return calibration;
}

export const logit = (calibration: Calibration, features: Features): number => {
  const [similarity, standout, coverage, bm25] = featureVector(features) as [number, number, number, number];
  return calibration.intercept + calibration.similarity * similarity + calibration.standout * standout + calibration.coverage * coverage + calibration.bm25 * bm25;
};

/** The score in [0, 1]; monotonic in every feature (the weights are positive). */
export const scoreOf = (calibration: Calibration, features: Features): number => 1 / (1 + Math.exp(-logit(calibration, features)));

/** The intercept that makes a logit of `cut` (under `calibration`) score exactly the default threshold. */
export function withOperatingPoint(calibration: Calibration, cut: number): Calibration {
  const target = Math.log(defaultSearchThreshold / (1 - defaultSearchThreshold));
  return { ...calibration, intercept: calibration.intercept + target - cut };
}
