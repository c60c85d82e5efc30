// Templates for tests: a real git repository made with `git init` holding a tiny site whose build script writes
// its customised values and its build environment into index.html; shortcuts to a built, installed template; and
// a page fetch on either URL form (`<sub>.localhost` by Host header, as a browser resolves it to loopback).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ApiResponse, TestApi, TestUser } from './platform.js';

// The fixture repositories are file:// ones, which the operator must allow: every test using them does.
process.env.TEMPLATE_FILE_REPOSITORIES = 'true';

export const templatesPath = '/api/sdk/v1/templates';

/** The site's build: every NEXT_PUBLIC_ value, SITE_LABEL and the names of all variables it saw, as JSON in the page. */
export const buildScript = `import { mkdirSync, writeFileSync } from 'node:fs';
const label = process.env.SITE_LABEL ?? 'none';
const publicValues = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('NEXT_PUBLIC_')));
const facts = { label, publicValues, envNames: Object.keys(process.env).sort() };
mkdirSync('dist/about', { recursive: true });
writeFileSync('dist/index.html', '<!doctype html><title>' + label + '</title><script type="application/json" id="facts">' + JSON.stringify(facts) + '</script>');
writeFileSync('dist/about/index.html', '<p>about ' + label + '</p>');
console.log('built ' + label);
`;

export const customizationFields = [
  { key: 'theme.primaryColor', type: 'color', label: 'Primary colour', default: '#112233', validation: { pattern: '^#[0-9a-fA-F]{6}$' } },
  { key: 'layout.columns', type: 'number', min: 1, max: 4, step: 1, default: 2 },
  { key: 'features.darkMode', type: 'boolean', default: false },
  { key: 'hero.title', type: 'string', maxLength: 40, default: 'Hello' },
  { key: 'layout.style', type: 'select', options: ['grid', 'list'], default: 'grid' },
];

export function manifest(overrides: Record<string, unknown> = {}, build: Record<string, unknown> = {}) {
  return {
    name: 'Fixture site',
    description: 'A tiny site for tests',
    build: { buildCommand: 'node build.mjs', outputDirectory: 'dist', environmentVariables: { SITE_LABEL: 'v1' }, ...build },
    customization: customizationFields,
    dependencies: { scripts: [], resources: [] },
    ...overrides,
  };
}

export interface FixtureRepo {
  dir: string;
  url: string;
  /** Writes the files (a string, a `{symlink}` target, or null to delete), commits, and answers the commit id. */
  commit(files: Record<string, string | { symlink: string } | null>, message?: string): string;
  remove(): void;
}

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  }).trim();

export function givenRepo(): FixtureRepo {
  const dir = mkdtempSync(join(tmpdir(), 'template-repo-'));
  git(dir, 'init', '-q', '-b', 'main');
  return {
    dir,
    url: `file://${dir}`,
    commit(files, message = 'change') {
      for (const [path, content] of Object.entries(files)) {
        const target = join(dir, path);
        rmSync(target, { force: true, recursive: true });
        if (content === null) continue;
        mkdirSync(dirname(target), { recursive: true });
        if (typeof content === 'string') writeFileSync(target, content);
        else symlinkSync(content.symlink, target);
      }
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '--allow-empty', '-m', message);
      return git(dir, 'rev-parse', 'HEAD');
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A repository whose one commit holds the fixture site. */
export function givenSiteRepo(overrides: Record<string, unknown> = {}, build: Record<string, unknown> = {}): { repo: FixtureRepo; gitHash: string } {
  const repo = givenRepo();
  const gitHash = repo.commit({ 'template.json': JSON.stringify(manifest(overrides, build)), 'build.mjs': buildScript }, 'site');
  return { repo, gitHash };
}

function ok(response: ApiResponse, status: number, what: string): ApiResponse {
  if (response.status !== status) throw new Error(`${what} answered ${response.status}: ${response.text}`);
  return response;
}

export async function givenTemplate(api: TestApi, owner: TestUser, body: Record<string, unknown>): Promise<string> {
  const created = ok(
    await api.as(owner.apiKey).post(templatesPath, { name: 'Fixture site', description: 'A tiny site', category: 'landing', tags: ['site'], ...body }),
    201,
    'create template',
  );
  return created.body.data.id;
}

/** Builds and waits for the end: the build answers at the end or at the wait bound, then its read answers until it ends. */
export async function buildToEnd(api: TestApi, owner: TestUser, templateId: string, version?: string): Promise<ApiResponse> {
  const started = await api.as(owner.apiKey).post(`${templatesPath}/${templateId}/build`, version ? { version } : {});
  if (started.status !== 200 || started.body.data.buildStatus !== 'building') return started;
  for (;;) {
    const read = await api.as(owner.apiKey).get(`${templatesPath}/${templateId}/builds/${started.body.data.buildId}?wait=5`);
    if (read.status !== 200 || read.body.data.buildStatus !== 'building') return read;
  }
}

export async function givenBuiltTemplate(
  api: TestApi,
  owner: TestUser,
  overrides: Record<string, unknown> = {},
): Promise<{ templateId: string; repo: FixtureRepo; gitHash: string }> {
  const { repo, gitHash } = givenSiteRepo(overrides);
  const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
  const built = await buildToEnd(api, owner, templateId);
  if (built.body.data?.buildStatus !== 'success') throw new Error(`fixture build failed: ${built.text}`);
  return { templateId, repo, gitHash };
}

export const pricing = { setupFee: 5, monthlyFee: 2, estimatedUsageCost: { perUse: 0.01, perMonth: 3, breakdown: { scripts: 1, resources: 2 } } };

export interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  facts?: { label: string; publicValues: Record<string, string>; envNames: string[] };
}

/** GET a page of a site: `host` form with Host `<sub>.localhost:PORT`, or `path` form at `/pages/<sub>/`. */
export function fetchPage(baseUrl: string, subdomain: string, form: 'host' | 'path', path = '/'): Promise<Page> {
  const base = new URL(baseUrl);
  const target = form === 'host' ? path : `/pages/${subdomain}${path}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: base.port, path: target, headers: { host: form === 'host' ? `${subdomain}.localhost:${base.port}` : base.host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const facts = /<script type="application\/json" id="facts">(.*)<\/script>/.exec(text)?.[1];
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ...(facts && { facts: JSON.parse(facts) }) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
