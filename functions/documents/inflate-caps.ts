// Byte caps on what a compressed original inflates to, checked before a parser sees it: a few hundred kilobytes of
// DOCX or PDF can inflate to gigabytes (a decompression bomb), and mammoth and pdf.js inflate whole parts in memory.
// Everything is inflated here as a stream and only counted, so checking costs a few megabytes, not the output.
import { Inflate, Unzlib } from 'fflate';
import { ExtractionError } from './extract-structured.js';

/**
 * Compressed bytes per push. fflate inflates a whole push at once, and deflate reaches about 1,000:1, so this bounds
 * one push's output to about 4 MB.
 */
const slice = 4 * 1024;

class CapExceeded extends Error {}

interface Count {
  total: number;
  /** Bytes `total` may reach. */
  room: number;
}

/**
 * Pushes `data` through a streaming inflater, adding what comes out to `count` (also what a damaged stream yields
 * before its error: a parser would get that far too); throws CapExceeded past `count.room`.
 */
function countInflated(make: (ondata: (chunk: Uint8Array) => void) => Inflate | Unzlib, data: Uint8Array, count: Count): void {
  const stream = make((chunk) => {
    count.total += chunk.length;
    if (count.total > count.room) throw new CapExceeded();
  });
  for (let at = 0; at < data.length; at += slice) stream.push(data.subarray(at, at + slice), at + slice >= data.length);
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

const u16 = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8);
const u32 = (bytes: Uint8Array, at: number) => (u16(bytes, at) | (u16(bytes, at + 2) << 16)) >>> 0;

/** Entries a DOCX may hold: a real one has a few dozen parts. */
const maxZipEntries = 2_000;

/**
 * Walks the zip's central directory (what mammoth's JSZip reads, so entries that overlap one another are counted each
 * time they would be inflated), refuses a declared size past the cap before inflating anything, then inflates each
 * entry counting its real output: past its declared size or past the cap in total, the file is refused.
 */
export function checkZipInflation(bytes: Uint8Array, cap: number): void {
  const refuse = (why: string): never => {
    throw new ExtractionError(`not a readable DOCX file: ${why}`);
  };
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) refuse('no zip directory found');
  const entries = u16(bytes, eocd + 10);
  const directoryAt = u32(bytes, eocd + 16);
  if (entries === 0xffff || directoryAt === 0xffffffff) refuse('ZIP64 archives are not read');
  if (entries > maxZipEntries) refuse(`it holds ${entries} parts; at most ${maxZipEntries} are read`);
  const records: Array<{ method: number; compressed: number; declared: number; localAt: number }> = [];
  let declaredTotal = 0;
  for (let index = 0, at = directoryAt; index < entries; index++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== 0x02014b50) refuse('its zip directory is damaged');
    const record = { method: u16(bytes, at + 10), compressed: u32(bytes, at + 20), declared: u32(bytes, at + 24), localAt: u32(bytes, at + 42) };
    if (record.compressed === 0xffffffff || record.declared === 0xffffffff || record.localAt === 0xffffffff) refuse('ZIP64 archives are not read');
    declaredTotal += record.declared;
    records.push(record);
    at += 46 + u16(bytes, at + 28) + u16(bytes, at + 30) + u16(bytes, at + 32);
  }
  const tooLarge = () => new ExtractionError(`the DOCX file inflates to more than ${mb(cap)}; the limit is ${mb(cap)}`);
  if (declaredTotal > cap) throw tooLarge();
  let inflated = 0;
  for (const record of records) {
    const at = record.localAt;
    if (at + 30 > bytes.length || u32(bytes, at) !== 0x04034b50) refuse('a part of it is damaged');
    const dataAt = at + 30 + u16(bytes, at + 26) + u16(bytes, at + 28);
    const data = bytes.subarray(dataAt, dataAt + record.compressed);
    if (record.method === 0) inflated += data.length;
    else if (record.method === 8) {
      // Room up to its declared size, so an entry that lies about its size is caught as soon as it passes it.
      const count = { total: 0, room: Math.min(record.declared, cap - inflated) };
      try {
        countInflated((ondata) => new Inflate(ondata), data, count);
      } catch (error) {
        if (!(error instanceof CapExceeded)) refuse('a part of it does not inflate');
        throw inflated + record.declared > cap ? tooLarge() : new ExtractionError('not a readable DOCX file: a part inflates past its declared size');
      }
      inflated += count.total;
    } else refuse(`compression method ${record.method} is not read`);
    if (inflated > cap) throw tooLarge();
  }
}

/** Filters pdf.js would run whose output this check cannot count without decoding them itself. */
const uncountedFilters = /\/(LZWDecode|LZW|RunLengthDecode|RL)\b/;

const latin1 = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('latin1');

const isZlibHeader = (bytes: Uint8Array, at: number) => (bytes[at]! & 0x0f) === 8 && ((bytes[at]! << 8) | bytes[at + 1]!) % 31 === 0;

/**
 * Counts what the PDF's streams inflate to: every stream whose data is zlib (FlateDecode first, the usual case; object
 * and cross-reference streams too). Files pdf.js would inflate through a path not counted here are refused instead:
 * encrypted ones (their streams are ciphertext until decrypted), LZW and run-length streams, and Flate behind another
 * filter.
 */
export function checkPdfInflation(bytes: Uint8Array, cap: number): void {
  const text = latin1(bytes, 0, bytes.length);
  if (/\/Encrypt\b/.test(text)) throw new ExtractionError('encrypted PDFs are not read; save the file without protection and upload it again');
  const count = { total: 0, room: cap };
  const keyword = /(?<!end)stream(\r\n|\n|\r)/g;
  let dictFrom = 0;
  for (let match = keyword.exec(text); match; match = keyword.exec(text)) {
    const dataAt = match.index + match[0].length;
    const dataEnd = text.indexOf('endstream', dataAt);
    const dictionary = text.slice(Math.max(dictFrom, match.index - 4096), match.index);
    const filters = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dictionary)?.[1] ?? '';
    if (uncountedFilters.test(filters)) throw new ExtractionError('the PDF uses LZW or run-length compression, which is not read');
    if (filters.startsWith('[') && /\/(FlateDecode|Fl)\b/.test(filters) && !/^\[\s*\/(FlateDecode|Fl)\b/.test(filters)) {
      throw new ExtractionError('the PDF compresses a stream behind another filter, which is not read');
    }
    const end = dataEnd < 0 ? bytes.length : dataEnd;
    if (end - dataAt > 2 && isZlibHeader(bytes, dataAt)) {
      try {
        countInflated((ondata) => new Unzlib(ondata), bytes.subarray(dataAt, end), count);
      } catch (error) {
        if (error instanceof CapExceeded) throw new ExtractionError(`the PDF's streams inflate to more than ${mb(cap)}; the limit is ${mb(cap)}`);
        // A damaged stream is pdf.js's to judge: it reads what it can or refuses the file.
      }
    }
    dictFrom = end;
    keyword.lastIndex = end;
  }
}
