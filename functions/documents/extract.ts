// Text of an original, page by page where the format has pages: PDF (unpdf, one string per page), DOCX (mammoth,
// pages cut at explicit page breaks), HTML (html-to-text with readable headings and tables), Markdown, text, CSV, JSON.
// Each parser gets a file only within the caps of `extraction` (limits.ts); this runs inside the extraction worker.
import { type HtmlToTextOptions, convert } from 'html-to-text';
import { Parser } from 'htmlparser2';
import type { StructuredTextItem } from 'unpdf';
import type { Page } from './chunker.js';
import { ExtractionError, csvToText, decodeUtf8, jsonToText, markdownToText } from './extract-structured.js';
import { checkPdfInflation, checkZipInflation } from './inflate-caps.js';
import { type SupportedMimeType, extraction } from './limits.js';

export { ExtractionError } from './extract-structured.js';

const headings = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

const htmlOptions: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    ...headings,
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, maxColumnWidth: 60 } },
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'nav', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
  ],
};

/**
 * Refuses HTML nested deeper than the cap before html-to-text builds and walks its tree, which costs time in the
 * depth times the size. htmlparser2 is html-to-text's own parser: elements closed implicitly count as it counts them.
 */
function checkHtmlDepth(html: string): void {
  let depth = 0;
  const tooDeep = new ExtractionError(`the HTML nests elements more than ${extraction.htmlDepth} deep; the limit is ${extraction.htmlDepth}`);
  const parser = new Parser({
    onopentagname() {
      if (++depth > extraction.htmlDepth) throw tooDeep;
    },
    onclosetag() {
      depth--;
    },
  });
  parser.end(html);
}

function htmlToText(html: string): string {
  checkHtmlDepth(html);
  return convert(html, htmlOptions);
}

/** Stands for a DOCX page break through the HTML step: a private-use character no document text contains. */
const pageBreak = '\uE000';

interface DocxElement {
  type: string;
  breakType?: string;
  value?: string;
  children?: DocxElement[];
}

const markPageBreaks = (element: DocxElement): DocxElement =>
  element.type === 'break' && element.breakType === 'page'
    ? { type: 'text', value: pageBreak }
    : element.children
      ? { ...element, children: element.children.map(markPageBreaks) }
      : element;

/**
 * A PDF page's text, its lines unwrapped into paragraphs: a blank line where the gap to the previous line is clearly
 * wider than the page's usual line spacing. PDFs draw paragraphs but do not mark them; the chunker keeps them together.
 */
function pdfPageText(items: StructuredTextItem[]): string {
  const lines: Array<{ y: number; text: string }> = [];
  let text = '';
  for (const item of items) {
    text += item.str;
    if (item.hasEOL || item === items.at(-1)) lines.push({ y: item.y, text }), (text = '');
  }
  const gaps = lines
    .slice(1)
    .map((line, index) => lines[index]!.y - line.y)
    .filter((gap) => gap > 0)
    .sort((a, b) => a - b);
  const usual = gaps[Math.floor(gaps.length / 2)] ?? 0;
  return lines
    .map((line, index) => {
      const gap = index === 0 ? 0 : lines[index - 1]!.y - line.y;
      return (index === 0 ? '' : gap > usual * 1.4 || gap < 0 ? '\n\n' : ' ') + line.text;
    })
    .join('');
}

async function pdfPages(bytes: Uint8Array): Promise<Page[]> {
  checkPdfInflation(bytes, extraction.pdfInflatedBytes);
  let pages: StructuredTextItem[][];
  try {
    // Loaded for PDFs only: each extraction starts a fresh worker, which should not pay for parsers it does not use.
    const { extractTextItems, getDocumentProxy } = await import('unpdf');
    // pdf.js takes ownership of the buffer it is given: hand it a copy.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    pages = (await extractTextItems(pdf)).items;
    await pdf.destroy();
  } catch (error) {
    throw new ExtractionError(`not a readable PDF: ${(error as Error).message}`);
  }
  return pages.map((items, index) => ({ pageNumber: index + 1, text: pdfPageText(items) }));
}

async function docxPages(bytes: Uint8Array): Promise<Page[]> {
  checkZipInflation(bytes, extraction.docxInflatedBytes);
  let html: string;
  try {
    const { default: mammoth } = await import('mammoth');
    // Images are never read (the text step skips them): their bytes are not even inflated.
    const convertImage = mammoth.images.imgElement(async () => ({ src: '' }));
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { transformDocument: markPageBreaks, convertImage })).value;
  } catch (error) {
    throw new ExtractionError(`not a readable DOCX file: ${(error as Error).message}`);
  }
  return htmlToText(html)
    .split(pageBreak)
    .map((text, index) => ({ pageNumber: index + 1, text }));
}

export async function extractPages(bytes: Uint8Array, mimeType: SupportedMimeType): Promise<Page[]> {
  const whole = (text: string): Page[] => [{ pageNumber: null, text }];
  const pages = await (async () => {
    switch (mimeType) {
      case 'application/pdf':
        return pdfPages(bytes);
      case 'application/vnd.openxmlformats-officedocument.wordprocessingml.document':
        return docxPages(bytes);
      case 'text/html':
        return whole(htmlToText(decodeUtf8(bytes)));
      case 'text/markdown':
        return whole(markdownToText(decodeUtf8(bytes)));
      case 'text/csv':
        return whole(csvToText(decodeUtf8(bytes)));
      case 'application/json':
        return whole(jsonToText(decodeUtf8(bytes)));
      case 'text/plain':
        return whole(decodeUtf8(bytes));
    }
  })();
  if (!pages.some((page) => page.text.trim() !== '')) throw new ExtractionError('no text found in the file (images are not read)');
  const chars = pages.reduce((sum, page) => sum + page.text.length, 0);
  if (chars > extraction.textChars) throw new ExtractionError(`the file holds ${chars} characters of text; the limit is ${extraction.textChars}`);
  return pages;
}
