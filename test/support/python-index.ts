// A PEP 503 simple package index on loopback, serving wheels the test writes itself (the public index is not
// reachable from these machines). Every request must carry the token as the password of user `__token__`.
import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';

export interface Wheel {
  name: string;
  version: string;
  /** Files under the package directory (`<name>/...`). */
  files: Record<string, string | Uint8Array>;
  /** Wheel tag; default `py3-none-any` (pure Python). */
  tag?: string;
  /** Published as a source archive only (`<name>-<version>.tar.gz`), no wheel. */
  sourceOnly?: boolean;
}

const recordHash = (bytes: Uint8Array) => `sha256=${createHash('sha256').update(bytes).digest('base64url')}`;

/** A wheel zip, written as `pip wheel` would: the package, METADATA, WHEEL and a RECORD of every file. */
export function buildWheel(wheel: Wheel): { fileName: string; bytes: Uint8Array } {
  const tag = wheel.tag ?? 'py3-none-any';
  const info = `${wheel.name}-${wheel.version}.dist-info`;
  const files: Record<string, Uint8Array> = {};
  for (const [path, content] of Object.entries(wheel.files)) files[`${wheel.name}/${path}`] = typeof content === 'string' ? strToU8(content) : content;
  files[`${info}/METADATA`] = strToU8(`Metadata-Version: 2.1\nName: ${wheel.name}\nVersion: ${wheel.version}\n`);
  files[`${info}/WHEEL`] = strToU8(`Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: ${tag.endsWith('none-any')}\nTag: ${tag}\n`);
  const record = Object.entries(files).map(([path, bytes]) => `${path},${recordHash(bytes)},${bytes.byteLength}`);
  files[`${info}/RECORD`] = strToU8(`${[...record, `${info}/RECORD,,`].join('\n')}\n`);
  return { fileName: `${wheel.name}-${wheel.version}-${tag}.whl`, bytes: zipSync(files, { level: 6 }) };
}

export interface PythonIndex {
  /** The simple index URL, ending in `/simple/`. */
  url: string;
  /** Requests answered 401 for a missing or wrong token. */
  refused: number;
  stop(): Promise<void>;
}

export async function startPythonIndex(wheels: Wheel[], token: string): Promise<PythonIndex> {
  const built = wheels.map((wheel) => ({
    project: wheel.name.toLowerCase().replace(/[-_.]+/g, '-'),
    ...(wheel.sourceOnly ? { fileName: `${wheel.name}-${wheel.version}.tar.gz`, bytes: gzipSync(Buffer.alloc(1024)) } : buildWheel(wheel)),
  }));
  const expected = `Basic ${Buffer.from(`__token__:${token}`).toString('base64')}`;
  const state = { refused: 0 };
  const server: Server = createServer((request, response) => {
    if (request.headers.authorization !== expected) {
      state.refused += 1;
      response.writeHead(401, { 'www-authenticate': 'Basic realm="test index"' }).end();
      return;
    }
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://index').pathname);
    const project = /^\/simple\/([^/]+)\/$/.exec(path)?.[1];
    const file = /^\/files\/([^/]+)$/.exec(path)?.[1];
    const links = built.filter((wheel) => wheel.project === project);
    if (project && links.length) {
      const anchors = links.map(
        (wheel) => `<a href="/files/${wheel.fileName}#sha256=${createHash('sha256').update(wheel.bytes).digest('hex')}">${wheel.fileName}</a>`,
      );
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><body>${anchors.join('\n')}</body></html>`);
      return;
    }
    const served = built.find((wheel) => wheel.fileName === file);
    if (served) response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from(served.bytes));
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple/`;
  return {
    url,
    get refused() {
      return state.refused;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
