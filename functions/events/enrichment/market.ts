// Tickers and companies mentioned in a text. Confidence says how the symbol was found: a cashtag of a
// known symbol is near certain, a company's name only suggests its stock.
import { ambiguousSymbols, knownSymbols, symbolIndex } from './symbols.js';

export interface Ticker {
  symbol: string;
  confidence: number;
}

const confidence = { knownCashtag: 0.95, unknownCashtag: 0.7, cryptoName: 0.7, cryptoSymbol: 0.75, stockSymbol: 0.6, companyName: 0.5 };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const notWordBefore = '(?<![\\p{L}\\p{N}])';
const notWordAfter = '(?![\\p{L}\\p{N}])';
const alternation = (names: string[]) =>
  names
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');

const cashtag = /(?<![\p{L}\p{N}$])\$([A-Za-z]{1,6}(?:\.[A-Za-z])?)(?![\p{L}\p{N}])/gu;
const upperWord = /(?<![\p{L}\p{N}$.])([A-Z]{3,6}(?:\.[A-Z])?)(?![\p{L}\p{N}])/gu;

const companyNames = new Map(
  knownSymbols.filter((known) => known.kind === 'stock').flatMap((known) => known.names.map((name) => [name, known.symbol] as const)),
);
const cryptoNames = new Map(
  knownSymbols.filter((known) => known.kind === 'crypto').flatMap((known) => known.names.map((name) => [name.toLowerCase(), known.symbol] as const)),
);
// Company names are proper nouns (Apple, not apple); coin names are written either way (Bitcoin, bitcoin).
const companyPattern = new RegExp(`${notWordBefore}(${alternation([...companyNames.keys()])})${notWordAfter}`, 'gu');
const cryptoPattern = new RegExp(`${notWordBefore}(${alternation([...cryptoNames.keys()])})${notWordAfter}`, 'giu');
/** "Acme Inc", "Globex Corporation", "Initech GmbH": capitalised words before a legal suffix. */
const legalName = /(?<![\p{L}\p{N}])((?:[A-Z][\p{L}\p{N}&'-]*\s+){1,3}(?:Inc|Corp|Corporation|Ltd|LLC|GmbH|PLC|AG|SA|Co)\.?)(?![\p{L}\p{N}])/gu;

export function extractTickers(text: string): Ticker[] {
  const found = new Map<string, number>();
  const note = (symbol: string, value: number) => found.set(symbol, Math.max(found.get(symbol) ?? 0, value));
  for (const [, raw] of text.matchAll(cashtag)) {
    const symbol = raw!.toUpperCase();
    note(symbol, symbolIndex.has(symbol) ? confidence.knownCashtag : confidence.unknownCashtag);
  }
  for (const [, symbol] of text.matchAll(upperWord)) {
    const known = symbolIndex.get(symbol!);
    if (known && !ambiguousSymbols.has(known.symbol)) note(known.symbol, known.kind === 'crypto' ? confidence.cryptoSymbol : confidence.stockSymbol);
  }
  for (const [, name] of text.matchAll(companyPattern)) note(companyNames.get(name!)!, confidence.companyName);
  for (const [, name] of text.matchAll(cryptoPattern)) note(cryptoNames.get(name!.toLowerCase())!, confidence.cryptoName);
  return [...found].map(([symbol, value]) => ({ symbol, confidence: value })).sort((a, b) => b.confidence - a.confidence || a.symbol.localeCompare(b.symbol));
}

export function extractCompanies(text: string): string[] {
  const names = new Set<string>();
  for (const [, name] of text.matchAll(companyPattern)) names.add(name!);
  for (const [, name] of text.matchAll(legalName)) names.add(name!.replace(/\s+/g, ' ').replace(/\.$/, ''));
  return [...names];
}
