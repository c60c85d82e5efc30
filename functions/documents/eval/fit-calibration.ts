// Fits the calibration of an embedding model on the evaluation set and prints the knots for calibration.ts:
// `npx tsx functions/documents/eval/fit-calibration.ts [--embedder local|bedrock]` (bedrock needs AWS credentials).
// The relevance cut is the highest raw cosine that still keeps 90 % of the relevant (question, passage) pairs: search
// ranks its results, so a near-topic passage above the line costs less than a missing answer. On this set F1 is flat
// (0.82-0.84) between cuts 0.49 and 0.55 for USE lite, so the recall target decides within that plateau.
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../ports.js';
import { evalPassages, evalQuestions } from './eval-set.js';

export interface PairSimilarities {
  relevant: number[];
  unrelated: number[];
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

/** Raw cosine of every question against every passage, split by whether the passage answers it. */
export async function pairSimilarities(embedder: Embedder): Promise<PairSimilarities> {
  const [passages, questions] = await Promise.all([embedder.embed(evalPassages.map((p) => p.text)), embedder.embed(evalQuestions.map((q) => q.question))]);
  const pairs: PairSimilarities = { relevant: [], unrelated: [] };
  evalQuestions.forEach((question, q) =>
    evalPassages.forEach((passage, p) => (passage.id === question.relevant ? pairs.relevant : pairs.unrelated).push(dot(questions[q]!, passages[p]!))),
  );
  return pairs;
}

/** Recall and precision of "similarity >= cut" as a relevance verdict. */
export function verdicts(pairs: PairSimilarities, passes: (similarity: number) => boolean) {
  const truePositives = pairs.relevant.filter(passes).length;
  const falsePositives = pairs.unrelated.filter(passes).length;
  return { recall: truePositives / pairs.relevant.length, precision: truePositives / Math.max(1, truePositives + falsePositives) };
}

export const targetRecall = 0.9;

export function fitCut(pairs: PairSimilarities): { cut: number; recall: number; precision: number } {
  const values = [...pairs.relevant, ...pairs.unrelated].sort((a, b) => b - a);
  for (let i = 1; i < values.length; i++) {
    const cut = (values[i - 1]! + values[i]!) / 2;
    const measured = verdicts(pairs, (similarity) => similarity >= cut);
    if (measured.recall >= targetRecall) return { cut, ...measured };
  }
  return { cut: values.at(-1)!, ...verdicts(pairs, () => true) };
}

async function main() {
  const which = process.argv.includes('bedrock') ? 'bedrock' : 'local';
  const embedder: Embedder & { stop?: () => Promise<void> } =
    which === 'local' ? (await import('#adapters/local/use-embedder.js')).createUseEmbedder(1) : (await import('#adapters/aws/bedrock-embedder.js')).createBedrockEmbedder();
  const pairs = await pairSimilarities(embedder);
  const fitted = fitCut(pairs);
  console.log(`${embedder.modelId}: ${pairs.relevant.length} relevant and ${pairs.unrelated.length} unrelated pairs`);
  console.log(`relevance cut ${fitted.cut.toFixed(3)}: recall ${fitted.recall.toFixed(3)}, precision ${fitted.precision.toFixed(3)}`);
  console.log(`calibration.ts: '${embedder.modelId}': knotsFor(${fitted.cut.toFixed(2)})`);
  await embedder.stop?.();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
