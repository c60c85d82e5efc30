// Splits extracted pages into chunks: whole paragraphs where they fit, sentences where they do not, never across a
// page. Where a paragraph is cut in two, the next chunk starts with the previous one's last sentence, so a thought
// that spans the cut stays findable; at paragraph boundaries no overlap is spent.
import { chunking } from './limits.js';

export interface Page {
  /** 1-based page of the original, or null for formats without pages. */
  pageNumber: number | null;
  text: string;
}

export interface ChunkDraft {
  position: number;
  pageNumber: number | null;
  /** Start of the chunk in the document's text: its pages joined with a blank line. */
  charOffset: number;
  content: string;
}

export const pageSeparator = '\n\n';

interface Unit {
  text: string;
  offset: number;
  startsParagraph: boolean;
  /** On a paragraph's first unit: the whole paragraph's length. */
  paragraphLength: number;
}

export interface ChunkSizes {
  targetChars: number;
  maxChars: number;
  overlapChars: number;
}

const sentenceEnd = /(?<=[.!?…])["'”’)\]]*\s+(?=["'“‘(\[]?[\p{Lu}\p{N}])/gu;

/** Pieces of at most `max` characters, cut at line breaks, then at spaces, then anywhere. */
function hardSplit(text: string, offset: number, max: number): Array<{ text: string; offset: number }> {
  const pieces: Array<{ text: string; offset: number }> = [];
  let start = 0;
  while (text.length - start > max) {
    const window = text.slice(start, start + max + 1);
    const cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    const end = cut > max / 3 ? start + cut : start + max;
    pieces.push({ text: text.slice(start, end).trim(), offset: offset + start });
    start = end;
    while (/\s/.test(text[start] ?? '')) start++;
  }
  if (start < text.length) pieces.push({ text: text.slice(start).trim(), offset: offset + start });
  return pieces.filter((piece) => piece.text.length > 0);
}

function sentences(paragraph: string, offset: number, max: number): Unit[] {
  const units: Unit[] = [];
  let start = 0;
  const push = (end: number) => {
    const raw = paragraph.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    for (const piece of hardSplit(raw.trim(), offset + start + lead, max)) units.push({ ...piece, startsParagraph: units.length === 0, paragraphLength: paragraph.length });
  };
  for (const match of paragraph.matchAll(sentenceEnd)) {
    push(match.index);
    start = match.index + match[0].length;
  }
  push(paragraph.length);
  return units;
}

/** Paragraphs (blank-line separated) of one page, split into sentences; offsets relative to the page. */
function pageUnits(text: string, max: number): Unit[] {
  const units: Unit[] = [];
  const paragraph = /\S[\s\S]*?(?=\n[ \t]*\n|$(?![\s\S]))/g;
  for (const match of text.matchAll(paragraph)) {
    const cleaned = match[0].replace(/[ \t]+/g, ' ').replace(/ ?\n ?/g, '\n');
    // Cleaning only shrinks runs of spaces, so offsets stay close enough to locate the passage.
    units.push(...sentences(cleaned.trimEnd(), match.index, max));
  }
  return units;
}

export function chunkPages(pages: Page[], sizes: ChunkSizes = chunking): ChunkDraft[] {
  const chunks: ChunkDraft[] = [];
  const lengthOf = (units: Unit[]) => units.reduce((sum, unit) => sum + unit.text.length + 1, -1);
  let pageStart = 0;
  for (const page of pages) {
    let current: Unit[] = [];
    let carried: Unit | undefined;
    /** `next` is the unit that did not fit: the overlap only bridges a paragraph cut in two. */
    const flush = (next?: Unit) => {
      if (current.every((unit) => unit === carried)) {
        current = [];
        return;
      }
      const content = current.map((unit, index) => (index === 0 ? '' : unit.startsParagraph ? '\n\n' : ' ') + unit.text).join('');
      chunks.push({ position: chunks.length, pageNumber: page.pageNumber, charOffset: pageStart + current[0]!.offset, content });
      const last = current.at(-1)!;
      carried = next && !next.startsParagraph && last.text.length <= sizes.overlapChars ? last : undefined;
      current = carried ? [carried] : [];
    };
    for (const unit of pageUnits(page.text, sizes.maxChars)) {
      const length = lengthOf(current);
      const full = length + 1 + unit.text.length > sizes.maxChars;
      // At a paragraph start, end the chunk if it is big enough, or half so and the paragraph would not fit whole.
      const atBoundary = unit.startsParagraph && (length >= sizes.targetChars || (length >= sizes.targetChars / 2 && length + 2 + unit.paragraphLength > sizes.maxChars));
      if (current.length && (full || atBoundary)) flush(unit);
      current.push(unit);
    }
    flush();
    pageStart += page.text.length + pageSeparator.length;
  }
  return chunks;
}
