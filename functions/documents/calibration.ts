// Reported `score`: one number in [0, 1] per (question, chunk) from the chunk alone, through a logistic model fitted
// per embedding model, so that the interface's default threshold of 0.7 means "likely answers the question" whichever
// model is in use and whatever else is in the graph. Its two inputs are the raw cosine of question and chunk and the
// share of the question's terms the chunk holds: neither is measured against the graph, so the same document and
// question score the same alone or among thousands of others (graph-relative inputs such as BM25's rarity weights or
// the cosine's standout among the graph's cosines made the quickstart's answer score 0.035 alone and 0.212 beside other
// documents). The weights come from bench/search-eval/fit-calibration.ts (logistic regression on the fit half
// of the evaluation sets), with the intercept moved so that the operating point it chose scores exactly 0.7.
import { defaultSearchThreshold } from './limits.js';

export interface Features {
  /** Raw cosine of question and chunk. */
  similarity: number;
  /**
   * Share of the question's distinct terms (stemmed, stop words and words that only ask left out) the chunk holds, in
   * [0, 1]: the lexical evidence, bounded and counted per chunk, since rarity weights would depend on the graph.
   */
  coverage: number;
}

export interface Calibration {
  intercept: number;
  similarity: number;
  coverage: number;
}

/** The model's inputs, in the order of the weights after the intercept. */
export const featureVector = (features: Features): number[] => [features.similarity, features.coverage];

const calibrations: Record<string, Calibration> = {
  // `npx tsx bench/search-eval/fit-calibration.ts`: USE lite, fit half of both evaluation sets.
  'universal-sentence-encoder-lite': { intercept: -5.097, similarity: 13.226, coverage: 6.254 },
  // Provisional: this machine has no Bedrock access, so Titan v2 takes USE lite's weights. Titan's cosines sit on
  // another scale than USE lite's, so refit with `fit-calibration.ts --embedder bedrock` on AWS and replace them.
  'amazon.titan-embed-text-v2:0': { intercept: -5.097, similarity: 13.226, coverage: 6.254 },
};

export function calibrationOf(modelId: string): Calibration {
  const calibration = calibrations[modelId];
  if (!calibration) throw new Error(`no calibration for embedding model ${modelId}`);
  return calibration;
}

export const logit = (calibration: Calibration, features: Features): number =>
  calibration.intercept + calibration.similarity * features.similarity + calibration.coverage * features.coverage;

/** The score in [0, 1]; monotonic in both features (the weights are positive). */
export const scoreOf = (calibration: Calibration, features: Features): number => 1 / (1 + Math.exp(-logit(calibration, features)));

/** The intercept that makes a logit of `cut` (under `calibration`) score exactly the default threshold. */
export function withOperatingPoint(calibration: Calibration, cut: number): Calibration {
  const target = Math.log(defaultSearchThreshold / (1 - defaultSearchThreshold));
  return { ...calibration, intercept: calibration.intercept + target - cut };
}
