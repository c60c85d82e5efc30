// npm (`--ignore-scripts`) and pip (`--only-binary :all:`, so no source package is ever built) as every installer
// runs them: the command lines, the refusals (install scripts, native wheels, lockfiles fetching from elsewhere) and
// the canonical lock, whatever runs the command: the OS sandbox locally, the installer function on AWS.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type InstallRequest, type PackageRegistry, PackageRefusedError, PackageResolutionError } from './dependency-port.js';
import type { DeclaredDependencies } from '../model.js';

export interface Run {
  status: number | null;
  output: string;
  timedOut: boolean;
}

/** Where one install happens and how its package manager is run. */
export interface InstallSite {
  /** The install's own directory, as this process sees it. */
  dir: string;
  /** The same directory as the package manager sees it (another path inside a sandbox). */
  seenAs: string;
  /** The download cache, as the package manager sees it. */
  cache: string;
  timeoutMs: number;
  run(command: string[], env: Record<string, string>): Promise<Run>;
}

/** What an install leaves: the tree (`nodejs/` or `python/` under `tree`), what was resolved, the canonical lock. */
export interface InstalledFiles {
  tree: string;
  resolved: Record<string, string>;
  lock: string;
}

const publicRegistry = { npm: 'https://registry.npmjs.org/', pypi: 'https://pypi.org/simple/' };
/** The machine's trust store (Debian's path): registries behind a proxy with its own CA are trusted as the machine trusts them. */
const systemCaBundle = '/etc/ssl/certs/ca-certificates.crt';
const trustsSystem = () => existsSync(systemCaBundle);
/** Enough of pip's `-vv` output to hold the lines that say why a package was not found. */
const outputTail = 65536;
/** The npm that ships with this Node: `<prefix>/lib/node_modules/npm` (on Lambda's managed Node runtime, /var/lang/lib/...). */
export const npmCli = join(dirname(dirname(process.execPath)), 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

/** Runs a command, keeping the tail of its output, killed at `timeoutMs`. */
export function spawnLimited(file: string, args: string[], env: Record<string, string>, timeoutMs: number, ids?: { uid: number; gid: number }): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...ids });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-outputTail));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => keep(Buffer.from(error.message)));
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output, timedOut });
    });
  });
}

/** A site without a sandbox around the package manager: it sees the directories as this process does. */
export const plainSite = (dir: string, cache: string, timeoutMs: number): InstallSite => ({
  dir,
  seenAs: dir,
  cache,
  timeoutMs,
  run: (command, env) => spawnLimited(command[0]!, command.slice(1), env, timeoutMs),
});

/** The token never appears in what is reported back. */
const scrub = (text: string, registry?: PackageRegistry) => (registry?.token ? text.split(registry.token).join('***') : text);

function names(declared: DeclaredDependencies): string[] {
  return Array.isArray(declared) ? declared.map((requirement) => /^[A-Za-z0-9._-]+/.exec(requirement)?.[0] ?? requirement) : Object.keys(declared);
}

const tooSlow = (declared: string[], timeoutMs: number) =>
  new PackageResolutionError(
    declared.join(', '),
    `installing ${declared.join(', ')} took longer than ${timeoutMs / 1000} s, the time limit of a package install`,
  );

/** What to do when the registry is not the one the packages are in. */
const registryHint = (ecosystem: 'npm' | 'pypi') => `check the URL, or choose the account's registry with setPackageRegistry (ecosystem "${ecosystem}")`;

/** npm's error output, read for the one of its failures that happened: unreachable, refused, no such package or version. */
function npmFailure(output: string, declared: string[], registry: string): PackageResolutionError {
  const all = declared.join(', ');
  const unreachable = /(ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|CERT_\w+|UNABLE_TO_\w+)/.exec(output)?.[1];
  if (unreachable)
    return new PackageResolutionError(
      all,
      `the npm registry ${registry} could not be reached (${unreachable}) while installing ${all}; ${registryHint('npm')}`,
    );
  if (/\bE401\b|\bE403\b/.test(output))
    return new PackageResolutionError(
      all,
      `the npm registry ${registry} refused access while installing ${all} (wrong or missing token); ${registryHint('npm')}`,
    );
  const missing =
    /'(@?[^@'\s]+)@[^']*' is not in this registry/.exec(output)?.[1] ??
    /404 Not Found - GET \S+\/(@[^/\s]+%2f[^/\s]+|[^/\s]+)/.exec(output)?.[1]?.replace('%2f', '/');
  if (missing) return new PackageResolutionError(missing, `package ${missing} does not exist in the npm registry ${registry}`);
  const target = /No matching version found for (@?[^@\s]+)@(\S+?)\.?$/m.exec(output);
  if (target) return new PackageResolutionError(target[1]!, `no version of ${target[1]} matches ${target[2]} in the npm registry ${registry}`);
  return new PackageResolutionError(all, `npm could not install ${all}: ${output.trim().split('\n').slice(-3).join(' ').slice(0, 400)}`);
}

/**
 * pip says "No matching distribution found" for an unreachable index, a missing project and a project without a
 * usable wheel alike; its `-vv` lines before that say which (the pip installer function reads them the same way).
 */
function pipFailure(output: string, declared: string[], index: string): PackageResolutionError {
  const all = declared.join(', ');
  if (
    /Could not fetch URL \S+: connection error|Failed to establish a new connection|Name or service not known|Temporary failure in name resolution|Read timed out|SSLError/.test(
      output,
    )
  ) {
    const cause =
      /\[Errno -?\d+\] ([^'"\\)]+)/.exec(output)?.[1]?.trim() ?? /(Read timed out|SSLError|Name or service not known)/.exec(output)?.[1] ?? 'connection error';
    return new PackageResolutionError(all, `the package index ${index} could not be reached (${cause}) while installing ${all}; ${registryHint('pypi')}`);
  }
  if (/Could not fetch URL \S+: 40[13] /.test(output))
    return new PackageResolutionError(
      all,
      `the package index ${index} refused access while installing ${all} (wrong or missing token); ${registryHint('pypi')}`,
    );
  const failed = /No matching distribution found for ([A-Za-z0-9._-]+)(\S*)/.exec(output);
  if (!failed) return new PackageResolutionError(all, `pip could not install ${all}: ${output.trim().split('\n').slice(-3).join(' ').slice(0, 400)}`);
  const name = failed[1]!;
  const spec = failed[2]!;
  const project = name.toLowerCase().replace(/[-_.]+/g, '-');
  if (new RegExp(`Could not fetch URL \\S*/${project.replace(/-/g, '[-_.]')}/: 404`, 'i').test(output)) {
    return new PackageResolutionError(name, `package ${name} does not exist in the package index ${index}`);
  }
  const versions = new RegExp(`requirement ${name.replace(/[.]/g, '\\.')}\\S* \\(from versions: ([^)]*)\\)`).exec(output)?.[1];
  if (versions && versions !== 'none')
    return new PackageResolutionError(name, `no release of ${name} matches ${spec} in the package index ${index} (it has ${versions})`);
  if (/none of the wheel's tags .* are compatible|is not a supported wheel on this platform/.test(output)) {
    return new PackageResolutionError(
      name,
      `package ${name}${spec} has wheels only for other platforms (native code) in ${index}; only pure-Python wheels (py3-none-any) are installed`,
    );
  }
  return new PackageResolutionError(
    name,
    `package ${name}${spec} has no wheel in ${index}, only source packages, which the platform does not build; choose a release that ships a pure-Python wheel`,
  );
}

interface NpmLock {
  packages?: Record<string, { version?: string; integrity?: string; resolved?: string; hasInstallScript?: boolean; link?: boolean }>;
}

/** A user's lockfile may only fetch from the registry in use: its `resolved` URLs are checked before `npm ci`. */
function checkedLockfile(lockfile: string, registryUrl: string): string {
  let lock: NpmLock & { lockfileVersion?: number };
  try {
    lock = JSON.parse(lockfile);
  } catch {
    throw new PackageRefusedError('lockfile', 'the lockfile is not valid JSON');
  }
  if (!lock || typeof lock !== 'object' || ![2, 3].includes(lock.lockfileVersion ?? 0))
    throw new PackageRefusedError('lockfile', 'the lockfile must be a package-lock.json of lockfileVersion 2 or 3');
  const origin = new URL(registryUrl).origin;
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (!path) continue;
    if (entry.link || (entry.resolved && new URL(entry.resolved, registryUrl).origin !== origin)) {
      throw new PackageRefusedError(path.replace(/^.*node_modules\//, ''), `the lockfile fetches ${path} from outside the registry ${origin}`);
    }
  }
  return lockfile;
}

export async function installNode(site: InstallSite, request: InstallRequest): Promise<InstalledFiles> {
  const registry = request.registry?.url ?? publicRegistry.npm;
  const project = join(site.dir, 'project');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'script-dependencies', version: '1.0.0', private: true, dependencies: request.declared }),
  );
  if (request.lockfile !== undefined) await writeFile(join(project, 'package-lock.json'), checkedLockfile(request.lockfile, registry));
  const host = new URL(registry);
  const auth = request.registry?.token ? `//${host.host}${host.pathname.replace(/\/?$/, '/')}:_authToken=${request.registry.token}\n` : '';
  await writeFile(join(project, '.npmrc'), `registry=${registry}\n${auth}`);
  const prefix = `${site.seenAs}/project`;
  const command = [
    process.execPath,
    npmCli,
    request.lockfile === undefined ? 'install' : 'ci',
    '--prefix',
    prefix,
    '--ignore-scripts',
    '--omit=dev',
    '--no-audit',
    '--no-fund',
    '--no-update-notifier',
    '--cache',
    `${site.cache}/npm`,
    '--userconfig',
    `${prefix}/.npmrc`,
    // One quick retry: npm's default (two, 10 s and more apart) keeps an unreachable registry's refusal waiting over a minute.
    '--fetch-retries=1',
    '--fetch-retry-mintimeout=1000',
    '--fetch-retry-maxtimeout=5000',
  ];
  const env = { PATH: '/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8', ...(trustsSystem() && { NODE_EXTRA_CA_CERTS: systemCaBundle }) };
  const outcome = await site.run(command, env);
  const declared = names(request.declared);
  if (outcome.timedOut) throw tooSlow(declared, site.timeoutMs);
  if (outcome.status !== 0) throw npmFailure(scrub(outcome.output, request.registry), declared, registry);
  const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as NpmLock;
  const entries = Object.entries(lock.packages ?? {}).filter(([path]) => path.startsWith('node_modules/'));
  const scripted = entries.find(([, entry]) => entry.hasInstallScript);
  if (scripted) {
    const name = scripted[0].replace(/^.*node_modules\//, '');
    throw new PackageRefusedError(
      name,
      `package ${name} runs install scripts (to build native code or fetch files), which the platform does not run; choose a package without them`,
    );
  }
  const tree = join(site.dir, 'tree');
  await mkdir(join(tree, 'nodejs'), { recursive: true });
  if (existsSync(join(project, 'node_modules'))) await rename(join(project, 'node_modules'), join(tree, 'nodejs', 'node_modules'));
  const resolved = Object.fromEntries(entries.map(([path, entry]) => [path.replace(/^node_modules\//, ''), entry.version ?? '']));
  const canonical = entries.map(([path, entry]) => [path, entry.version, entry.integrity]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  return { tree, resolved, lock: JSON.stringify(canonical) };
}

interface PipReport {
  install?: Array<{
    metadata: { name: string; version: string };
    download_info?: { url?: string; archive_info?: { hash?: string; hashes?: Record<string, string> } };
  }>;
}

/** The registry URL with the token as basic-auth password (`__token__`), as PyPI-compatible indexes take it. */
function pipIndex(registry?: PackageRegistry): string {
  if (!registry) return publicRegistry.pypi;
  if (!registry.token) return registry.url;
  const url = new URL(registry.url);
  url.username = '__token__';
  url.password = registry.token;
  return url.toString();
}

/** pip of `python`; the installer function on AWS runs the same command line (functions/scripts/packages/installer/pip_installer.py). */
export async function installPython(site: InstallSite, request: InstallRequest, python: string): Promise<InstalledFiles> {
  await writeFile(join(site.dir, 'requirements.txt'), `${(request.declared as string[]).join('\n')}\n`);
  await mkdir(join(site.dir, 'tmp'));
  const command = [
    // -vv: the lines that tell an unreachable index, a missing project and one without wheels apart (pipFailure).
    python,
    '-E',
    '-s',
    '-m',
    'pip',
    'install',
    '-vv',
    '--retries',
    '1',
    '--isolated',
    '--no-input',
    '--disable-pip-version-check',
    '--progress-bar',
    'off',
    '--no-compile',
    '--only-binary',
    ':all:',
    '--target',
    `${site.seenAs}/tree/python`,
    '--index-url',
    pipIndex(request.registry),
    '--cache-dir',
    `${site.cache}/pip`,
    '--report',
    `${site.seenAs}/report.json`,
    '-r',
    `${site.seenAs}/requirements.txt`,
    ...(trustsSystem() ? ['--cert', systemCaBundle] : []),
  ];
  const env = { PATH: '/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8', TMPDIR: `${site.seenAs}/tmp` };
  const outcome = await site.run(command, env);
  const declared = names(request.declared);
  if (outcome.timedOut) throw tooSlow(declared, site.timeoutMs);
  if (outcome.status !== 0) throw pipFailure(scrub(outcome.output, request.registry), declared, request.registry?.url ?? publicRegistry.pypi);
  const report = JSON.parse(await readFile(join(site.dir, 'report.json'), 'utf8')) as PipReport;
  const installed = report.install ?? [];
  for (const item of installed) {
    const file = decodeURIComponent(item.download_info?.url?.split('/').pop()?.split('#')[0] ?? '');
    // name-version(-build)?-python-abi-platform.whl: only abi `none` and platform `any` are pure Python.
    const tags = file
      .replace(/\.whl$/, '')
      .split('-')
      .slice(-2);
    if (tags[0] !== 'none' || tags[1] !== 'any') {
      throw new PackageRefusedError(
        item.metadata.name,
        `package ${item.metadata.name} ${item.metadata.version} ships native code (${file}); only pure-Python wheels are installed`,
      );
    }
  }
  const tree = join(site.dir, 'tree');
  await mkdir(join(tree, 'python'), { recursive: true });
  const resolved = Object.fromEntries(installed.map((item) => [item.metadata.name, item.metadata.version]));
  const canonical = installed
    .map((item) => `${item.metadata.name.toLowerCase()}==${item.metadata.version} ${item.download_info?.archive_info?.hash ?? ''}`)
    .sort();
  return { tree, resolved, lock: canonical.join('\n') };
}
