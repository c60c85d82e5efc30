// Text formats turned into prose the embedder reads well: Markdown without its markup, CSV rows and JSON leaves as
// "name: value" lines, so a chunk taken out of the middle still says what each value is.

/** A problem with the file itself: the document ends as `failed` with this message as the reason. */
export class ExtractionError extends Error {}

export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true })
      .decode(bytes)
      .replace(/^\uFEFF/, '')
      .replace(/\r\n?/g, '\n');
  } catch {
    throw new ExtractionError('the file is not valid UTF-8 text');
  }
}

export function markdownToText(markdown: string): string {
  return markdown
    .replace(/^```[^\n]*\n?/gm, '')
    .replace(/^ {0,3}#{1,6}\s+(.*?)\s*#*$/gm, '\n$1\n')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|\W)[*_](\S(?:.*?\S)?)[*_](?=\W|$)/gm, '$1$2')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/^ {0,3}>\s?/gm, '')
    .replace(/^ {0,3}([-*_])( ?\1){2,}\s*$/gm, '')
    .replace(/\n{3,}/g, '\n\n');
}

/** RFC 4180 rows: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') row.push(field), (field = '');
    else if (char === '\n') row.push(field), rows.push(row), (row = []), (field = '');
    else field += char;
  }
  if (quoted) throw new ExtractionError('the CSV file has an unterminated quoted field');
  if (field !== '' || row.length) row.push(field), rows.push(row);
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ''));
}

export function csvToText(text: string): string {
  const [header, ...rows] = parseCsv(text);
  if (!header) return '';
  const names = header.map((name, index) => name.trim() || `column ${index + 1}`);
  return rows.map((cells) => cells.map((cell, index) => `${names[index] ?? `column ${index + 1}`}: ${cell.trim()}`).join('\n')).join('\n\n');
}

function jsonLines(value: unknown, path: string, lines: string[]): void {
  if (Array.isArray(value))
    value.forEach((item, index) => {
      jsonLines(item, `${path}[${index}]`, lines);
    });
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) jsonLines(inner, path ? `${path}.${key}` : key, lines);
  } else lines.push(`${path || 'value'}: ${String(value)}`);
}

/** Each element of a top-level array (or each top-level field) becomes a paragraph of "path: value" lines. */
export function jsonToText(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ExtractionError(`the JSON file does not parse: ${(error as Error).message}`);
  }
  const parts = Array.isArray(parsed)
    ? parsed.map((item, index) => [`[${index}]`, item] as const)
    : parsed !== null && typeof parsed === 'object'
      ? Object.entries(parsed)
      : [['', parsed] as const];
  return parts
    .map(([path, inner]) => {
      const lines: string[] = [];
      jsonLines(inner, path, lines);
      return lines.join('\n');
    })
    .join('\n\n');
}
