// A tiny npm registry on loopback: packuments and tarballs of packages the test writes itself (packed with the
// system's tar), counting the requests it answers. `tarballBase` lets a registry point its tarballs elsewhere, as a
// hostile registry would.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NpmPackage {
  name: string;
  version: string;
  files: Record<string, string>;
}

export interface NpmRegistry {
  /** Ends in `/`. */
  url: string;
  /** Requests answered so far. */
  requests: number;
  tarballUrl(pkg: NpmPackage): string;
  integrity(pkg: NpmPackage): string;
  stop(): Promise<void>;
}

function pack(pkg: NpmPackage): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'npm-pack-'));
  try {
    mkdirSync(join(dir, 'package'));
    writeFileSync(join(dir, 'package', 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', main: 'index.js' }));
    for (const [path, content] of Object.entries(pkg.files)) writeFileSync(join(dir, 'package', path), content);
    execFileSync('tar', ['-czf', join(dir, 'package.tgz'), '-C', dir, 'package']);
    return readFileSync(join(dir, 'package.tgz'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startNpmRegistry(packages: NpmPackage[], options: { tarballBase?: string } = {}): Promise<NpmRegistry> {
  const tarballs = new Map(packages.map((pkg) => [`/${pkg.name}/-/${pkg.name}-${pkg.version}.tgz`, pack(pkg)]));
  const integrityOf = (pkg: NpmPackage) => `sha512-${createHash('sha512').update(tarballs.get(`/${pkg.name}/-/${pkg.name}-${pkg.version}.tgz`)!).digest('base64')}`;
  let base = '';
  const tarballUrl = (pkg: NpmPackage) => `${options.tarballBase ?? base}${pkg.name}/-/${pkg.name}-${pkg.version}.tgz`;
  const registry: NpmRegistry = { url: '', requests: 0, tarballUrl, integrity: integrityOf, stop: async () => undefined };
  const server: Server = createServer((req, res) => {
    registry.requests++;
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://registry').pathname);
    const tarball = tarballs.get(path);
    if (tarball) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    const versions = packages.filter((pkg) => `/${pkg.name}` === path);
    if (versions.length === 0) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const packument = {
      name: versions[0]!.name,
      'dist-tags': { latest: versions.at(-1)!.version },
      versions: Object.fromEntries(versions.map((pkg) => [pkg.version, { name: pkg.name, version: pkg.version, dist: { tarball: tarballUrl(pkg), integrity: integrityOf(pkg) } }])),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  registry.url = base;
  registry.stop = () => new Promise<void>((closed) => server.close(() => closed()));
  return registry;
}
