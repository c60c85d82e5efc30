// Lexicon-based sentiment in the manner of AFINN and VADER: word valences from the shipped lexicon,
// negation within three words, intensifiers, "but" shifting weight to the second clause, exclamation
// emphasis, and VADER's normalisation of the sum into -1..1.
import { intensifiers, lexicon, negations } from './sentiment-lexicon.js';

export interface Sentiment {
  score: number;
  label: 'positive' | 'negative' | 'neutral';
  confidence: number;
}

/** Words, then emoticons standing alone, then emoji. */
const tokenPattern = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*|(?<=^|\s)(?:[:;][-']?[()dDpP/]|<3)(?=$|\s|[.,!?])|\p{Extended_Pictographic}/gu;
/** VADER's alpha: sum / sqrt(sum² + alpha) approaches ±1 as evidence accumulates. */
const alpha = 15;
const negationWindow = 3;
const negationFactor = -0.74;
const neutralBand = 0.05;

const round = (value: number) => Math.round(value * 1000) / 1000;

function tokenize(text: string): string[] {
  return Array.from(text.matchAll(tokenPattern), ([token]) =>
    /^[\p{L}\p{N}]/u.test(token) ? token.toLowerCase().replace(/’/g, "'") : token.replace(/\uFE0F/g, ''),
  );
}

/** Null for text without a single word; otherwise a score in -1..1, a label and how sure the analyser is. */
export function analyzeSentiment(text: string): Sentiment | null {
  const tokens = tokenize(text);
  if (tokens.length === 0) return null;
  const pivot = tokens.lastIndexOf('but');
  let sum = 0;
  let hits = 0;
  tokens.forEach((token, index) => {
    const valence = lexicon.get(token);
    if (valence === undefined) return;
    let value = valence * (intensifiers.get(tokens[index - 1] ?? '') ?? 1);
    if (tokens.slice(Math.max(0, index - negationWindow), index).some((previous) => negations.has(previous))) value *= negationFactor;
    if (pivot >= 0) value *= index < pivot ? 0.5 : 1.5;
    sum += value;
    hits++;
  });
  if (hits > 0) {
    const emphasis = Math.min(3, (text.match(/!/g) ?? []).length) * 0.3;
    sum += Math.sign(sum) * emphasis;
  }
  const score = sum / Math.sqrt(sum * sum + alpha);
  const label = score >= neutralBand ? 'positive' : score <= -neutralBand ? 'negative' : 'neutral';
  // More scored words and a stronger score make a surer verdict; a text with no scored word is a weak "neutral".
  const evidence = Math.min(1, hits / 3);
  const confidence = hits === 0 ? 0.3 : 0.4 + 0.35 * Math.abs(score) + 0.25 * evidence;
  return { score: round(score), label, confidence: round(Math.min(0.99, confidence)) };
}
