// Text of an original, page by page where the format has pages: PDF (unpdf, one string per page), DOCX (mammoth,
// pages cut at explicit page breaks), HTML (html-to-text with readable headings and tables), Markdown, text, CSV, JSON.
import { type HtmlToTextOptions, convert } from 'html-to-text';
import mammoth from 'mammoth';
import { type StructuredTextItem, extractTextItems, getDocumentProxy } from 'unpdf';
import type { Page } from './chunker.js';
import { ExtractionError, csvToText, decodeUtf8, jsonToText, markdownToText } from './extract-structured.js';
import type { SupportedMimeType } from './limits.js';

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
  const gaps = lines.slice(1).map((line, index) => lines[index]!.y - line.y).filter((gap) => gap > 0).sort((a, b) => a - b);
  const usual = gaps[Math.floor(gaps.length / 2)] ?? 0;
  return lines.map((line, index) => {
    const gap = index === 0 ? 0 : lines[index - 1]!.y - line.y;
    return (index === 0 ? '' : gap > usual * 1.4 || gap < 0 ? '\n\n' : ' ') + line.text;
  }).join('');
}

async function pdfPages(bytes: Uint8Array): Promise<Page[]> {
  let pages: StructuredTextItem[][];
  try {
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
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { transformDocument: markPageBreaks })).value;
  } catch (error) {
    throw new ExtractionError(`not a readable DOCX file: ${(error as Error).message}`);
  }
  return convert(html, htmlOptions)
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
        return whole(convert(decodeUtf8(bytes), htmlOptions));
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
  return pages;
}
