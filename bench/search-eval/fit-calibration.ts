// Fits the search calibration of an embedding model and prints it for calibration.ts:
// `npx tsx bench/search-eval/fit-calibration.ts [--embedder local|bedrock]` (bedrock needs AWS credentials).
// 1. Both evaluation sets go through the real pipeline (test/support/search-eval.ts); the questions at even places
//    are the fit half, the odd ones are held out for the tests (test/integration/documents-search-quality.test.ts).
// 2. A logistic regression (Newton's method) on every candidate of the fit half: is the chunk an answer, from its
//    similarity and its share of the question's terms (inputs that do not depend on the rest of the graph).
// 3. The operating point: the strictest logit cut that still gives all but `maxMissed` of the answerable questions
//    of the fit half a result (a search that answers nothing is the failure users meet first). With USE lite this
//    lets many unanswerable questions through: no cut separates them (docs/decisions.md, Documents). The intercept
//    moves so that this cut scores exactly 0.7.
import { fileURLToPath } from 'node:url';
import { candidatesOf, measure, prepareSet } from '../../test/support/search-eval.js';
import { type Calibration, featureVector, logit, withOperatingPoint } from '../../functions/documents/calibration.js';
import { defaultSearchThreshold } from '../../functions/documents/limits.js';
import type { Embedder } from '../../functions/documents/ports.js';
import { parsePlatformSettings } from '../../functions/app/platform.js';
import { passageDocuments, passageQuestions } from './eval-set.js';
import { workplaceDocuments, workplaceQuestions } from './workplace-set.js';

export const inFitHalf = (questionIndex: number) => questionIndex % 2 === 0;
export const heldOut = (questionIndex: number) => !inFitHalf(questionIndex);

const searchLimit = 5;
/** Share of answerable questions of the fit half that may get no result: well under the tests' 0.15 (0.1 left 0.13 of the held-out half with none). */
const maxMissed = 0.05;
/** The floor on unanswerable questions given a result, which USE lite cannot meet at `maxMissed`. */
const maxFalseResults = 0.2;

export const evaluationSets = [
  { name: 'workplace', documents: workplaceDocuments, questions: workplaceQuestions },
  { name: 'passages', documents: passageDocuments, questions: passageQuestions },
] as const;

/** Solves `matrix x = vector` by Gaussian elimination with partial pivoting (the matrix is small and positive definite). */
function solve(matrix: number[][], vector: number[]): number[] {
  const size = vector.length;
  const rows = matrix.map((row, at) => [...row, vector[at]!]);
  for (let column = 0; column < size; column++) {
    const pivot = rows.slice(column).reduce((best, row, at) => (Math.abs(row[column]!) > Math.abs(rows[best]![column]!) ? column + at : best), column);
    [rows[column], rows[pivot]] = [rows[pivot]!, rows[column]!];
    for (let row = column + 1; row < size; row++) {
      const factor = rows[row]![column]! / rows[column]![column]!;
      for (let at = column; at <= size; at++) rows[row]![at]! -= factor * rows[column]![at]!;
    }
  }
  const solution = new Array<number>(size).fill(0);
  for (let row = size - 1; row >= 0; row--) {
    let sum = rows[row]![size]!;
    for (let at = row + 1; at < size; at++) sum -= rows[row]![at]! * solution[at]!;
    solution[row] = sum / rows[row]![row]!;
  }
  return solution;
}

/** Logistic regression with an intercept and a small ridge penalty, by Newton's method. */
export function fitLogistic(samples: Array<{ x: number[]; y: 0 | 1 }>, ridge = 1e-3, iterations = 50): number[] {
  const size = samples[0]!.x.length + 1;
  let weights = new Array<number>(size).fill(0);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const gradient = weights.map((weight) => ridge * weight);
    const hessian = Array.from({ length: size }, (_, row) => Array.from({ length: size }, (_, column) => (row === column ? ridge : 0)));
    for (const { x, y } of samples) {
      const inputs = [1, ...x];
      const p = 1 / (1 + Math.exp(-inputs.reduce((sum, value, at) => sum + value * weights[at]!, 0)));
      inputs.forEach((value, row) => {
        gradient[row]! += (p - y) * value;
        inputs.forEach((other, column) => {
          hessian[row]![column]! += p * (1 - p) * value * other;
        });
      });
    }
    const step = solve(hessian, gradient);
    weights = weights.map((weight, at) => weight - step[at]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return weights;
}

export async function fitCalibration(embedder: Embedder) {
  const prepared = await Promise.all(evaluationSets.map(async (set) => ({ name: set.name, set: await prepareSet(embedder, set.documents, set.questions) })));
  const unfitted: Calibration = { intercept: 0, similarity: 1, coverage: 0 };
  const sets = prepared.map(({ name, set }) => ({ name, candidates: candidatesOf(set, unfitted) }));
  const samples = sets.flatMap(({ candidates }) =>
    candidates.filter((_, at) => inFitHalf(at)).flatMap(({ hits }) => hits.map((hit) => ({ x: featureVector(hit), y: (hit.relevant ? 1 : 0) as 0 | 1 }))),
  );
  const [intercept, similarity, coverage] = fitLogistic(samples) as [number, number, number];
  const fitted: Calibration = { intercept, similarity, coverage };
  // Candidate cuts: every candidate's logit on the fit half, strictest first. The operating point is the strictest cut
  // at which at most `maxMissed` of the answerable questions of the fit halves (pooled) get no result at all.
  const cuts = [
    ...new Set(sets.flatMap(({ candidates }) => candidates.filter((_, at) => inFitHalf(at)).flatMap(({ hits }) => hits.map((hit) => logit(fitted, hit))))),
  ].sort((a, b) => b - a);
  const figuresAt = (calibration: Calibration, include: (at: number) => boolean) =>
    sets.map(({ name, candidates }) => ({ name, ...measure(candidates, calibration, { threshold: defaultSearchThreshold, limit: searchLimit, include }) }));
  const missedAt = (cut: number) => {
    const figures = figuresAt(withOperatingPoint(fitted, cut), inFitHalf);
    return figures.reduce((sum, set) => sum + set.answerableWithNoResult * set.answerable, 0) / figures.reduce((sum, set) => sum + set.answerable, 0);
  };
  const cut = cuts.map((candidate) => candidate - 1e-9).find((candidate) => missedAt(candidate) <= maxMissed) ?? cuts.at(-1)! - 1e-9;
  const calibration = withOperatingPoint(fitted, cut);
  // What the floor on false results would cost: the loosest cut at which no set's fit half gives more than
  // `maxFalseResults` of its unanswerable questions a result (docs/decisions.md keeps what it cost USE lite).
  const falseResultsAt = (candidate: number) =>
    Math.max(...figuresAt(withOperatingPoint(fitted, candidate), inFitHalf).map((set) => set.unanswerableWithResult));
  const strict =
    [...cuts]
      .reverse()
      .map((candidate) => candidate - 1e-9)
      .find((candidate) => falseResultsAt(candidate) <= maxFalseResults) ?? cuts[0]!;
  return {
    calibration,
    fit: figuresAt(calibration, inFitHalf),
    heldOut: figuresAt(calibration, heldOut),
    heldOutAtFalseResultFloor: figuresAt(withOperatingPoint(fitted, strict), heldOut),
  };
}

async function main() {
  const which = process.argv.includes('bedrock') ? 'bedrock' : 'local';
  const embedder: Embedder & { stop?: () => Promise<void> } =
    which === 'local'
      ? (await import('#adapters/local/use-embedder.js')).createUseEmbedder(1)
      : (await import('#adapters/aws/bedrock-embedder.js')).createBedrockEmbedder({}, parsePlatformSettings(process.env).documents.embeddingModelId);
  const { calibration, fit, heldOut: held, heldOutAtFalseResultFloor } = await fitCalibration(embedder);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  for (const [part, figures] of [
    ['fit half', fit],
    ['held out', held],
    [`held out, cut at <= ${maxFalseResults} false results on the fit half`, heldOutAtFalseResultFloor],
  ] as const) {
    for (const set of figures)
      console.log(
        `${part} ${set.name}: ${JSON.stringify(Object.fromEntries(Object.entries(set).map(([key, value]) => [key, typeof value === 'number' ? round(value) : value])))}`,
      );
  }
  const rounded = JSON.stringify(calibration, (_, value: unknown) => (typeof value === 'number' ? round(value) : value));
  console.log(`calibration.ts: '${embedder.modelId}': ${rounded}`);
  await embedder.stop?.();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
