// Reported `score`: one number in [0, 1] per (question, chunk) from the embedding similarity and the lexical match,
// through a logistic model fitted per embedding model, so that the interface's default threshold of 0.7 means "likely
// answers the question" whichever model is in use. Neither signal separates answers from near misses alone: raw
// cosines of right answers and of unanswerable questions overlap, and BM25 misses paraphrases. The weights come from
// functions/documents/eval/fit-calibration.ts (logistic regression on the fit half of the evaluation sets), with the
// intercept moved so that the operating point it chose scores exactly 0.7.
import { defaultSearchThreshold } from './limits.js';

export interface Features {
  /** Raw cosine of question and chunk. */
  similarity: number;
  /**
   * How far the cosine stands out from the question's cosines with every chunk of the graph, in standard deviations.
   * A small graph says little about that spread: its mean and deviation are shrunk towards the model's background
   * (cosines of questions with unrelated text) as if `backgroundWeight` chunks of it were in the graph too.
   */
  standout: number;
  /** BM25+ of the chunk for the question, 0 when it holds none of its terms. */
  bm25: number;
  /** Share of the question's distinct terms the chunk holds, weighted by their rarity. */
  coverage: number;
}

export interface Calibration {
  /** Mean and standard deviation of the model's cosines between questions and unrelated chunks. */
  background: { mean: number; deviation: number };
  intercept: number;
  /**
   * Fitted negative for USE lite: the standout already carries the cosine (divided by a deviation near 0.14), and the
   * two together say "near the top of this graph" counts more than "high in absolute terms". Their net weight on the
   * cosine stays positive (standout / deviation > -similarity), so the score still rises with it.
   */
  similarity: number;
  standout: number;
  coverage: number;
  /** Weight of log(1 + bm25). */
  bm25: number;
}

export const backgroundWeight = 50;

/** The standout of `similarity` among `spread.count` cosines of mean `spread.mean`, shrunk towards the background. */
export function standoutOf(calibration: Calibration, similarity: number, spread: { count: number; mean: number; deviation: number }): number {
  const { mean: priorMean, deviation: priorDeviation } = calibration.background;
  const total = spread.count + backgroundWeight;
  const mean = (spread.count * spread.mean + backgroundWeight * priorMean) / total;
  const variance = (spread.count * (spread.deviation ** 2 + (spread.mean - mean) ** 2) + backgroundWeight * (priorDeviation ** 2 + (priorMean - mean) ** 2)) / total;
  return variance > 0 ? (similarity - mean) / Math.sqrt(variance) : 0;
}

/** The model's inputs, in the order of the weights after the intercept. */
export const featureVector = (features: Features): number[] => [features.similarity, features.standout, features.coverage, Math.log1p(features.bm25)];

const calibrations: Record<string, Calibration> = {
  // `npx tsx functions/documents/eval/fit-calibration.ts`: USE lite + BM25, fit half of both evaluation sets.
  'universal-sentence-encoder-lite': { background: { mean: 0.189, deviation: 0.138 }, intercept: -2.456, similarity: -10.926, standout: 3.736, coverage: 1.798, bm25: 0.878 },
  // Provisional: this machine has no Bedrock access, so Titan v2 takes USE lite's weights. The standout is measured
  // against the graph's own cosines, so it carries over better than a raw cosine cut would; the background and the
  // weights are still USE lite's. Refit with `fit-calibration.ts --embedder bedrock` on AWS and replace them.
  'amazon.titan-embed-text-v2:0': { background: { mean: 0.189, deviation: 0.138 }, intercept: -2.456, similarity: -10.926, standout: 3.736, coverage: 1.798, bm25: 0.878 },
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
