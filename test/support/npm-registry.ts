// An npm registry on loopback serving packages the test writes itself, whose content the test may change between
// installs, counting the requests it answers. Packuments carry no `integrity` and no `shasum`, as some mirrors and
// private registries serve them. `tarballBase` lets a registry point its tarballs elsewhere, as a hostile one would.
import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface NpmPackage {
  name: string;
  version: string;
  /** Files under the package (`package.json` is written from name and version unless given). */
  files: Record<string, string>;
}

export interface NpmRegistry {
  /** The registry URL, ending in `/`. */
  url: string;
  /** Requests answered so far. */
  requests: number;
  /** Serve this content for the package's name and version from now on. */
  serve(pkg: NpmPackage): void;
  tarballUrl(pkg: NpmPackage): string;
  /** The `integrity` a lockfile records for the package's current tarball. */
  integrity(pkg: NpmPackage): string;
  stop(): Promise<void>;
}

/** One ustar header block and the file's bytes padded to 512. */
function tarEntry(path: string, content: Buffer): Buffer {
  const header = Buffer.alloc(512);
  const field = (value: string, offset: number, length: number) => header.write(value, offset, length, 'utf8');
  field(path, 0, 100);
  field('0000644\0', 100, 8);
  field('0000000\0', 108, 8);
  field('0000000\0', 116, 8);
  field(`${content.byteLength.toString(8).padStart(11, '0')}\0`, 124, 12);
  field('00000000000\0', 136, 12);
  field('        ', 148, 8);
  field('0', 156, 1);
  field('ustar\0', 257, 6);
  field('00', 263, 2);
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  field(`${checksum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return Buffer.concat([header, content, Buffer.alloc((512 - (content.byteLength % 512)) % 512)]);
}

/** A package tarball as `npm pack` lays it out: every file under `package/`. */
export function packTarball(pkg: NpmPackage): Buffer {
  const files = { 'package.json': JSON.stringify({ name: pkg.name, version: pkg.version, main: 'index.js' }), ...pkg.files };
  const entries = Object.entries(files).map(([path, text]) => tarEntry(`package/${path}`, Buffer.from(text)));
  return gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));
}

/** The version's entry of the packument, as the npm registry derives it from package.json (with `hasInstallScript`). */
function manifestOf(pkg: NpmPackage): Record<string, unknown> {
  const manifest = JSON.parse(pkg.files['package.json'] ?? JSON.stringify({ name: pkg.name, version: pkg.version, main: 'index.js' })) as {
    scripts?: Record<string, string>;
  };
  const scripted = ['preinstall', 'install', 'postinstall'].some((name) => manifest.scripts?.[name]);
  return { ...manifest, ...(scripted && { hasInstallScript: true }) };
}

export async function startNpmRegistry(packages: NpmPackage[], options: { tarballBase?: string } = {}): Promise<NpmRegistry> {
  const served = new Map<string, { tarball: Buffer; manifest: Record<string, unknown> }>();
  const key = (name: string, version: string) => `${name}@${version}`;
  const serve = (pkg: NpmPackage) => served.set(key(pkg.name, pkg.version), { tarball: packTarball(pkg), manifest: manifestOf(pkg) });
  packages.forEach(serve);
  let url = '';
  const tarballUrl = (pkg: NpmPackage) => `${options.tarballBase ?? url}${pkg.name}/-/${pkg.name.split('/').pop()}-${pkg.version}.tgz`;
  const integrity = (pkg: NpmPackage) =>
    `sha512-${createHash('sha512')
      .update(served.get(key(pkg.name, pkg.version))!.tarball)
      .digest('base64')}`;
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests++;
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname);
    const tarball = /^\/(.+)\/-\/[^/]+-(\d+\.\d+\.\d+)\.tgz$/.exec(path);
    if (tarball) {
      const bytes = served.get(key(tarball[1]!, tarball[2]!))?.tarball;
      if (bytes) response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
      else response.writeHead(404).end();
      return;
    }
    const name = path.slice(1);
    const versions = [...served.keys()].filter((entry) => entry.startsWith(`${name}@`)).map((entry) => entry.slice(name.length + 1));
    if (!versions.length) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    const packument = {
      name,
      'dist-tags': { latest: versions.at(-1) },
      versions: Object.fromEntries(
        versions.map((version) => [version, { ...served.get(key(name, version))!.manifest, dist: { tarball: tarballUrl({ name, version, files: {} }) } }]),
      ),
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    serve,
    tarballUrl,
    integrity,
    get requests() {
      return requests;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
