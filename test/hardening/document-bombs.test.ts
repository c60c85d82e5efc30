// Attacks on document extraction (issue 26, items 5, 6 and 12): decompression bombs in DOCX and PDF, deeply nested
// HTML, files that overrun the extraction worker's time or memory or the caps on text and chunks, and a shutdown
// during an extraction. The server runs in this process, so its resident memory is this process's.
import { Zip, ZipDeflate, Zlib, strToU8, unzipSync } from 'fflate';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractionError } from '../../functions/documents/extract.js';
import { extractChunks } from '../../functions/documents/extract-worker.js';
import { extraction } from '../../functions/documents/limits.js';
import { buildDocx, buildPdf } from '../support/document-files.js';
import { handbookPages, mime, settled, upload } from '../support/documents.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

const mb = 1024 * 1024;

/** Building a 300 MB bomb deflates 300 MB: seconds alone, longer on a busy machine. */
const bombTimeout = 300_000;

const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** `bytes` of the same byte, fed in 1 MB blocks so the test never holds what the file inflates to. */
function pushRepeated(push: (block: Uint8Array) => void, unit: string, bytes: number) {
  const block = strToU8(unit.repeat(Math.ceil(mb / unit.length)));
  for (let sent = 0; sent < bytes; sent += block.length) push(block);
}

/** A real DOCX whose document part holds `inflatedBytes` of one letter: a few hundred kilobytes on the wire. */
async function docxBomb(inflatedBytes: number): Promise<Uint8Array> {
  const base = unzipSync(await buildDocx([{ heading: 'Bomb', paragraphs: ['placeholder'] }]));
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    parts.push(chunk);
  });
  for (const [name, data] of Object.entries(base)) {
    if (name === 'word/document.xml') continue;
    const entry = new ZipDeflate(name, { level: 9 });
    zip.add(entry);
    entry.push(data, true);
  }
  const document = new ZipDeflate('word/document.xml', { level: 9 });
  zip.add(document);
  document.push(
    strToU8('<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>'),
  );
  pushRepeated((block) => document.push(block), 'a', inflatedBytes);
  document.push(strToU8('</w:t></w:r></w:p></w:body></w:document>'), true);
  zip.end();
  return concat(parts);
}

/** The same DOCX with the document part's size in the zip directory claimed to be `claimed` bytes. */
function withClaimedSize(docx: Uint8Array, claimed: number): Uint8Array {
  const bytes = new Uint8Array(docx);
  const view = Buffer.from(bytes.buffer);
  const name = Buffer.from('word/document.xml');
  for (let at = view.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = view.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
    if (view.subarray(at + 46, at + 46 + name.length).equals(name)) view.writeUInt32LE(claimed, at + 24);
  }
  return bytes;
}

/** A one-page PDF whose content stream inflates to `inflatedBytes` of drawing operators. */
async function pdfBomb(inflatedBytes: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595, 842]);
  const parts: Uint8Array[] = [];
  const zlib = new Zlib({ level: 9 }, (chunk) => parts.push(chunk));
  pushRepeated((block) => zlib.push(block), 'q Q\n', inflatedBytes);
  zlib.push(new Uint8Array(0), true);
  page.node.set(PDFName.of('Contents'), pdf.context.register(pdf.context.stream(concat(parts), { Filter: 'FlateDecode' })));
  return pdf.save();
}

/** HTML that nests `depth` elements `times` over: under the depth cap, a long read for html-to-text. */
const nestedHtml = (depth: number, bytes: number) => {
  const unit = `${'<div>'.repeat(depth)}${'word '.repeat(20)}${'</div>'.repeat(depth)}`;
  return unit.repeat(Math.ceil(bytes / unit.length));
};

/** The most this process has ever held resident, in bytes. */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

/** What a refused bomb may add to the peak: well under what parsing its 300 MB would cost (issue 26: +560 to +870 MB). */
const rssBudget = 150 * mb;

/** Peak growth per bomb, printed after the suite. */
const grown: string[] = [];

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
  // Warm every path a bomb takes (the extraction worker, the parsers, the embedder), so the peak measured before a
  // bomb already holds what any upload costs.
  for (const file of [
    { bytes: await buildPdf(handbookPages, { attachmentBytes: 100_000 }), filename: 'warm.pdf', mimeType: mime.pdf },
    { bytes: await buildDocx([{ heading: 'Warm', paragraphs: ['A paragraph to warm the DOCX path.'] }]), filename: 'warm.docx', mimeType: mime.docx },
  ]) {
    const uploaded = await upload(api, owner, file);
    expect((await settled(api, owner, uploaded.body.data.documentId)).status).toBe('completed');
  }
});
afterAll(async () => {
  console.log(`document bombs: peak resident memory added ${grown.join(', ')} (budget ${rssBudget / mb} MB each)`);
  await api.stop();
});

async function uploadAndSettle(file: { bytes: Uint8Array | string; filename: string; mimeType: string }) {
  const uploaded = await upload(api, owner, file);
  expect(uploaded.status).toBe(201);
  const documentId = uploaded.body.data.documentId as string;
  return { documentId, status: await settled(api, owner, documentId) };
}

async function expectNothingKept(documentId: string) {
  const chunks = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${documentId}/chunks`);
  expect(chunks.body.data.count).toBe(0);
}

describe('documents hardening: decompression bombs', () => {
  it(
    'refuses a DOCX inflating to 300 MB without the process swelling',
    async () => {
      // Prepare
      const bomb = await docxBomb(300 * mb);
      const before = peakRss();
      // Act
      const { documentId, status } = await uploadAndSettle({ bytes: bomb, filename: 'bomb.docx', mimeType: mime.docx });
      // Assess
      expect(bomb.length).toBeLessThan(mb);
      expect(status).toMatchObject({ status: 'failed', chunkCount: 0, failureReason: expect.stringMatching(/inflates to more than 32 MB/) });
      grown.push(`DOCX +${Math.round((peakRss() - before) / mb)} MB`);
      expect(peakRss() - before).toBeLessThan(rssBudget);
      await expectNothingKept(documentId);
    },
    bombTimeout,
  );

  it(
    'refuses a DOCX whose zip directory understates what a part inflates to',
    async () => {
      // Prepare
      const liar = withClaimedSize(await docxBomb(20 * mb), 4096);
      // Act
      const { documentId, status } = await uploadAndSettle({ bytes: liar, filename: 'liar.docx', mimeType: mime.docx });
      // Assess
      expect(status).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(/inflates past its declared size/) });
      await expectNothingKept(documentId);
    },
    bombTimeout,
  );

  it(
    'refuses a PDF whose stream inflates to 300 MB without the process swelling',
    async () => {
      // Prepare
      const bomb = await pdfBomb(300 * mb);
      const before = peakRss();
      // Act
      const { documentId, status } = await uploadAndSettle({ bytes: bomb, filename: 'bomb.pdf', mimeType: mime.pdf });
      // Assess
      expect(bomb.length).toBeLessThan(mb);
      expect(status).toMatchObject({ status: 'failed', chunkCount: 0, failureReason: expect.stringMatching(/streams inflate to more than 128 MB/) });
      grown.push(`PDF +${Math.round((peakRss() - before) / mb)} MB`);
      expect(peakRss() - before).toBeLessThan(rssBudget);
      await expectNothingKept(documentId);
    },
    bombTimeout,
  );
});

describe('documents hardening: nested HTML', () => {
  it('keeps answering health while 1.5 MB of nested HTML is read, then refuses it for its depth', async () => {
    // Prepare
    const html = '<div>'.repeat(300_000);
    // Act: health, then the document's status, again and again until processing ends.
    const uploaded = await upload(api, owner, { bytes: html, filename: 'nested.html', mimeType: mime.html });
    const documentId = uploaded.body.data.documentId as string;
    let answeredWhileProcessing = 0;
    let slowestHealthMs = 0;
    let status = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${documentId}/status`);
    for (let round = 0; round < 10_000 && status.body.data.status === 'processing'; round++) {
      const asked = performance.now();
      const health = await api.request('GET', '/api/sdk/v1/health');
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - asked);
      expect(health.status).toBe(200);
      status = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${documentId}/status`);
      if (status.body.data.status === 'processing') answeredWhileProcessing++;
    }
    // Assess: health answered during the read, each answer a small part of it (a blocked loop makes them equal).
    expect(html.length).toBe(1_500_000);
    expect(status.body.data).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(/nests elements more than 256 deep/) });
    expect(answeredWhileProcessing).toBeGreaterThan(2);
    expect(slowestHealthMs).toBeLessThan(status.body.data.processingTimeMs / 4);
    await expectNothingKept(documentId);
  });
});

describe('documents hardening: the extraction worker', () => {
  it('stops a read that overruns its time and answers why', async () => {
    // Prepare
    const slow = new TextEncoder().encode(nestedHtml(250, 1_500_000));
    // Act
    const outcome = await extractChunks(slow, 'text/html', { ...extraction, timeMs: 200 }).catch((error: unknown) => error);
    // Assess
    expect(outcome).toBeInstanceOf(ExtractionError);
    expect((outcome as Error).message).toBe('reading the file took longer than 0.2 s; the limit is 0.2 s');
  });

  it('stops a read that overruns its memory, and the next read still works', async () => {
    // Prepare
    const large = new TextEncoder().encode(nestedHtml(250, 1_500_000));
    // Act
    const outcome = await extractChunks(large, 'text/html', { ...extraction, workerHeapMb: 24 }).catch((error: unknown) => error);
    const next = await extractChunks(new TextEncoder().encode('<p>Still reading files after a worker ran out of memory.</p>'), 'text/html');
    // Assess
    expect(outcome).toBeInstanceOf(ExtractionError);
    expect((outcome as Error).message).toBe('reading the file needs more than 24 MB of memory; the limit is 24 MB');
    expect(next.map((chunk) => chunk.content)).toEqual(['Still reading files after a worker ran out of memory.']);
  }, 120_000);
});

describe('documents hardening: text and chunks', () => {
  /** Plain prose: sentences of a few words, paragraphs of a few sentences. */
  const prose = (chars: number) => 'The quick brown fox jumps over the lazy dog again. '.repeat(Math.ceil(chars / 51)).slice(0, chars);

  it('refuses a file holding more text than the cap', async () => {
    // Prepare
    const text = new TextEncoder().encode(prose(extraction.textChars + 1));
    // Act
    const outcome = await extractChunks(text, 'text/plain').catch((error: unknown) => error);
    // Assess
    expect(outcome).toBeInstanceOf(ExtractionError);
    expect((outcome as Error).message).toBe(`the file holds ${extraction.textChars + 1} characters of text; the limit is ${extraction.textChars}`);
  }, 120_000);

  it('refuses a file that makes more chunks than the cap, within the text cap', async () => {
    // Prepare
    const text = new TextEncoder().encode(prose(extraction.textChars - 1));
    // Act
    const outcome = await extractChunks(text, 'text/plain').catch((error: unknown) => error);
    // Assess
    expect(outcome).toBeInstanceOf(ExtractionError);
    expect((outcome as Error).message).toMatch(new RegExp(`^the file makes \\d+ chunks; the limit is ${extraction.chunks}$`));
  }, 120_000);
});

// Last: it stops the platform of this file.
describe('documents hardening: shutdown', () => {
  it('stops an extraction in progress instead of waiting for it, and the document fails with the reason', async () => {
    // Prepare: a long read (4.5 MB of nested HTML, within every cap).
    const uploaded = await upload(api, owner, { bytes: nestedHtml(250, 4_500_000), filename: 'long.html', mimeType: mime.html });
    const documentId = uploaded.body.data.documentId as string;
    // Act
    await api.stop();
    const after = await startTestPlatform();
    const status = await after.as(owner.apiKey).get(`/api/sdk/v1/documents/${documentId}/status`);
    api = after;
    // Assess
    expect(uploaded.body.data.status).toBe('processing');
    expect(status.body.data).toMatchObject({ status: 'failed', chunkCount: 0, failureReason: expect.stringMatching(/stopped by a shutdown/) });
  });
});
