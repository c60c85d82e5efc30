// Real files for the documents tests and bench, built in memory: a multi-page PDF (pdf-lib), a DOCX with page
// breaks (docx), HTML with headings and a table, Markdown.
import { randomBytes } from 'node:crypto';
import { Document, HeadingLevel, Packer, PageBreak, Paragraph, TextRun } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** One page's paragraphs. */
export type PageText = string[];

/** Lines of at most `width` characters, for pdf-lib, which draws but does not wrap. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) lines.push(line), (line = word);
    else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export async function buildPdf(pages: PageText[], options: { attachmentBytes?: number } = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const paragraphs of pages) {
    const page = pdf.addPage([595, 842]);
    let y = 790;
    for (const paragraph of paragraphs) {
      for (const line of wrap(paragraph, 90)) {
        page.drawText(line, { x: 50, y, size: 10, font });
        y -= 14;
      }
      y -= 10;
    }
  }
  // Bytes that are not text: they make a file large (the asynchronous path) without making it slow to embed.
  if (options.attachmentBytes) {
    await pdf.attach(randomBytes(options.attachmentBytes), 'noise.bin', { mimeType: 'application/octet-stream' });
  }
  return pdf.save();
}

export async function buildDocx(pages: Array<{ heading: string; paragraphs: string[] }>): Promise<Uint8Array> {
  const children = pages.flatMap((page, index) => [
    new Paragraph({ text: page.heading, heading: HeadingLevel.HEADING_1 }),
    ...page.paragraphs.map((text) => new Paragraph({ children: [new TextRun(text)] })),
    ...(index < pages.length - 1 ? [new Paragraph({ children: [new PageBreak()] })] : []),
  ]);
  return new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children }] })));
}

export const toBase64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');
