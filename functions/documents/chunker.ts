// Splits extracted pages into chunks: whole paragraphs where they fit, whole sentences where they do not, never across
// a page. Where a paragraph is cut in two, the next chunk starts with the previous one's last sentence, so a thought
// that spans the cut stays findable; at paragraph boundaries no overlap is spent. A heading (a short line of its own,
// without a sentence's end) is never a chunk: it ends the chunk before it and becomes the `heading` of the chunks of
// its section, which search ranks and shows with them. A sentence is only cut when it is longer than
// `sentenceCeiling` chunks (a table or a dump with no sentence ends): then at line breaks, spaces, or anywhere.
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
  /** The heading of the section the chunk is in, or null before the first heading. */
  heading: string | null;
}

export const pageSeparator = '\n\n';

interface Unit {
  text: string;
  heading: string | null;
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

/** A sentence up to this many times maxChars stays whole, even though its chunk then exceeds maxChars. */
const sentenceCeiling = 3;

/**
 * A paragraph that reads as a heading: one line of a few words that does not end like a sentence or a list item,
 * is not a "name: value" line (a CSV or JSON field), and does not start as a bullet.
 */
export function isHeading(paragraph: string): boolean {
  const text = paragraph.trim();
  return (
    text.length > 0 &&
    text.length <= 100 &&
    !text.includes('\n') &&
    /\p{L}/u.test(text) &&
    !/[.!?;,:…]["'”’)]*$/u.test(text) &&
    !/^[\w.[\]-]+: /.test(text) &&
    !/^[-*•+>|]/.test(text) &&
    text.split(/\s+/).length <= 14
  );
}

const sentenceEnd = /(?<=[.!?…])["'”’)\]]*\s+(?=["'“‘([]?[\p{Lu}\p{N}])/gu;

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

function sentences(paragraph: string, offset: number, max: number, heading: string | null): Unit[] {
  const units: Unit[] = [];
  let start = 0;
  const push = (end: number) => {
    const raw = paragraph.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    for (const piece of hardSplit(raw.trim(), offset + start + lead, max * sentenceCeiling))
      units.push({ ...piece, heading, startsParagraph: units.length === 0, paragraphLength: paragraph.length });
  };
  for (const match of paragraph.matchAll(sentenceEnd)) {
    push(match.index);
    start = match.index + match[0].length;
  }
  push(paragraph.length);
  return units;
}

interface Paragraph {
  text: string;
  /** Relative to the page. */
  offset: number;
}

/** Paragraphs (blank-line separated) of one page, runs of spaces shrunk: offsets stay close enough to locate them. */
function paragraphsOf(text: string): Paragraph[] {
  const found = /\S[\s\S]*?(?=\n[ \t]*\n|$(?![\s\S]))/g;
  return [...text.matchAll(found)].map((match) => ({
    text: match[0]
      .replace(/[ \t]+/g, ' ')
      .replace(/ ?\n ?/g, '\n')
      .trimEnd(),
    offset: match.index,
  }));
}

export function chunkPages(pages: Page[], sizes: ChunkSizes = chunking): ChunkDraft[] {
  const paragraphs = pages.map((page) => paragraphsOf(page.text));
  // A document of nothing but heading-like lines (a one-line note) is body text: it must stay findable.
  const headingsCount = paragraphs.flat().filter((paragraph) => isHeading(paragraph.text)).length;
  const readsHeadings = headingsCount < paragraphs.flat().length;
  const chunks: ChunkDraft[] = [];
  const lengthOf = (units: Unit[]) => units.reduce((sum, unit) => sum + unit.text.length + 1, -1);
  let pageStart = 0;
  let heading: string | null = null;
  pages.forEach((page, pageIndex) => {
    let current: Unit[] = [];
    let carried: Unit | undefined;
    /** `next` is the unit that did not fit: the overlap only bridges a paragraph cut in two. */
    const flush = (next?: Unit) => {
      if (current.every((unit) => unit === carried)) {
        current = [];
        return;
      }
      const content = current.map((unit, index) => (index === 0 ? '' : unit.startsParagraph ? '\n\n' : ' ') + unit.text).join('');
      chunks.push({
        position: chunks.length,
        pageNumber: page.pageNumber,
        charOffset: pageStart + current[0]!.offset,
        content,
        heading: current.find((unit) => unit !== carried)!.heading,
      });
      const last = current.at(-1)!;
      carried = next && !next.startsParagraph && last.text.length <= sizes.overlapChars ? last : undefined;
      current = carried ? [carried] : [];
    };
    for (const paragraph of paragraphs[pageIndex]!) {
      if (readsHeadings && isHeading(paragraph.text)) {
        flush();
        heading = paragraph.text;
        continue;
      }
      for (const unit of sentences(paragraph.text, paragraph.offset, sizes.maxChars, heading)) {
        const length = lengthOf(current);
        const full = length + 1 + unit.text.length > sizes.maxChars;
        // At a paragraph start, end the chunk if it is big enough, or half so and the paragraph would not fit whole.
        const atBoundary =
          unit.startsParagraph && (length >= sizes.targetChars || (length >= sizes.targetChars / 2 && length + 2 + unit.paragraphLength > sizes.maxChars));
        if (current.length && (full || atBoundary)) flush(unit);
        current.push(unit);
      }
    }
    flush();
    pageStart += page.text.length + pageSeparator.length;
  });
  return chunks;
}
