// The embedding model's tokenizer (SentencePiece unigram pieces, best split by Viterbi) as @energetic-ai/embeddings
// has it, made about 7 times faster: it looked up the pieces starting at each position in a fresh copy of the rest of
// the text and kept the candidates of each position in an object keyed by start, iterated with for-in. This walks a
// trie built as the package builds it, in place, and keeps the candidates in arrays, in the same order; pieces,
// scores, tie-breaks and the handling of unknown symbols are the package's, so the ids are the same. Plain JavaScript:
// the embedding worker loads it.

const separator = '\u2581';
/** Ids below this are reserved (padding, unknown, ...): no text splits into them except the unknown piece, 0. */
const reservedPieces = 6;

/** A tokenizer for `vocabulary` (the model's vocab.json: [piece, score] by id). */
export function createTokenizer(vocabulary) {
  const root = { children: new Map(), piece: undefined };
  for (let id = reservedPieces; id < vocabulary.length; id++) {
    const [text, score] = vocabulary[id];
    const symbols = [...text];
    let node = root;
    for (const symbol of symbols) {
      if (!node.children.has(symbol)) node.children.set(symbol, { children: new Map(), piece: undefined });
      node = node.children.get(symbol);
    }
    // A piece listed twice keeps its last score and id, as the package's trie does.
    if (symbols.length > 0) node.piece = { length: symbols.length, score, id };
  }
  return { encode: (input) => encode(root, vocabulary, input) };
}

/** The pieces of the vocabulary that start at `start`, shortest first; an unknown piece if none does. */
function piecesAt(root, symbols, start) {
  const found = [];
  for (let at = start, node = root.children.get(symbols[start]); node; node = node.children.get(symbols[++at])) {
    if (node.piece) found.push(node.piece);
  }
  if (found.length === 0) found.push({ length: 1, score: 0, id: 0 });
  return found;
}

function encode(root, vocabulary, input) {
  const normalized = input.normalize('NFKC');
  const symbols = [...(normalized.length > 0 ? separator + normalized.replace(/ /g, separator) : normalized)];
  // The pieces ending at each position, by ascending start (the order the package visits them in).
  const ending = Array.from({ length: symbols.length + 1 }, () => []);
  for (let start = 0; start < symbols.length; start++) for (const piece of piecesAt(root, symbols, start)) ending[start + piece.length].push(piece);
  const words = new Array(symbols.length + 1).fill(0);
  const best = new Array(symbols.length + 1).fill(0);
  for (let end = 0; end <= symbols.length; end++) {
    for (const { length, score, id } of ending[end]) {
      const total = score + best[end - length];
      if (best[end] === 0 || total >= best[end]) {
        best[end] = total;
        words[end] = id;
      }
    }
  }
  // Back from the end by the length of each id's text, as the package steps (for the unknown id, that of its text).
  const ids = [];
  for (let at = words.length - 1; at > 0; at -= vocabulary[words[at]][0].length) ids.push(words[at]);
  // Runs of unknown pieces count as one.
  return ids.filter((id, at) => !(id === 0 && ids[at - 1] === 0)).reverse();
}
