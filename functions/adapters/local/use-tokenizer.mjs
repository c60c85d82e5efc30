// The embedding model's tokenizer (SentencePiece unigram pieces, best split by Viterbi) as @energetic-ai/embeddings
// has it, made about 7 times faster: it looked up the pieces starting at each position in a fresh copy of the rest of
// the text and kept the candidates of each position in an object keyed by start, iterated with for-in. This walks the
// same trie in place and keeps them in arrays, in the same order; pieces, scores, tie-breaks and the handling of
// unknown symbols are the package's, so the ids are the same. Plain JavaScript: the worker loads it.

/** Makes `tokenizer` (an EmbeddingsModel's) split texts in place, into the ids it gave before. */
export function tokenizeInPlace(tokenizer) {
  tokenizer.encode = (input) => encode(tokenizer, input);
}

const separator = '\u2581';

function piecesAt(trie, symbols, start) {
  const found = [];
  let node = trie.root.children[symbols[start]];
  for (let at = start; at < symbols.length && node; at++) {
    if (node.end) found.push(node.word);
    node = node.children[symbols[at + 1]];
  }
  // A symbol no piece starts with is an unknown piece (id 0) of its own.
  if (found.length === 0) found.push([[symbols[start]], 0, 0]);
  return found;
}

function encode(tokenizer, input) {
  const normalized = input.normalize('NFKC');
  const symbols = [...(normalized.length > 0 ? separator + normalized.replace(/ /g, separator) : normalized)];
  // The pieces ending at each position, by ascending start (the order the package visits them in).
  const ending = Array.from({ length: symbols.length + 1 }, () => []);
  const words = new Array(symbols.length + 1).fill(0);
  const best = new Array(symbols.length + 1).fill(0);
  for (let start = 0; start < symbols.length; start++) {
    for (const piece of piecesAt(tokenizer.trie, symbols, start)) ending[start + piece[0].length].push(piece);
  }
  for (let end = 0; end <= symbols.length; end++) {
    for (const [key, score, index] of ending[end]) {
      const total = score + best[end - key.length];
      if (best[end] === 0 || total >= best[end]) {
        best[end] = total;
        words[end] = index;
      }
    }
  }
  const ids = [];
  for (let at = words.length - 1; at > 0; at -= tokenizer.vocabulary[words[at]][0].length) ids.push(words[at]);
  // Runs of unknown pieces count as one.
  return ids.filter((id, at) => !(id === 0 && ids[at - 1] === 0)).reverse();
}
