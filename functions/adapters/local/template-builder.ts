// The local TemplateBuilder: fetch exactly the commit, read template.json, `npm ci` when there is a lockfile (the
// one step that reaches a registry, through the egress guard), run the build command (no network), and publish the
// output under `<pagesDir>/<sub>` by swapping a symlink, so that what is served changes at once and only after
// everything succeeded. Every command goes through the BuildCommandRunner. Builds queue under a global and a
// per-account limit: a tenant's many builds wait their turn instead of slowing everyone's runs.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readlink, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { BuildFailure, collectOutput, readManifest } from '#functions/templates/checkout-port.js';
import type { BuildOutcome, BuildRecord } from '#functions/templates/model.js';
import type { BuildCommandRunner, BuildJob, TemplateBuilder } from '#functions/templates/ports.js';
import type { TemplateSettings } from '#functions/templates/settings.js';
import { logger } from '#platform/logger.js';

export interface LocalTemplateBuilderOptions {
  /** Served sites: `<pagesDir>/<sub>` is a symlink to `<pagesDir>/.builds/<buildId>`. */
  pagesDir: string;
  /** Scratch space for checkouts. */
  workDir: string;
  runner: BuildCommandRunner;
  /** The whole build's time limit, read at each build. */
  timeoutMs: number;
  /** The templates' settings of the platform the builder serves. */
  settings: TemplateSettings;
  onOutcome: (outcome: BuildOutcome & { logs: string[] }) => Promise<unknown>;
}

/** The environment every step gets: nothing of the platform's own (keys, endpoints, data paths) leaks in. */
function cleanEnv(settings: TemplateSettings, home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: settings.path, HOME: home, LANG: 'C.UTF-8', ...extra };
}

/** file:// only when the operator allows it (TEMPLATE_FILE_REPOSITORIES=true), a template made meanwhile included. */
const gitEnv = (settings: TemplateSettings, home: string) =>
  cleanEnv(settings, home, {
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ALLOW_PROTOCOL: settings.fileRepositories ? 'https:file' : 'https',
  });

/** A first-come queue that starts a build when both its account and the whole platform are under their limit. */
function buildQueue(settings: TemplateSettings) {
  const waiting: Array<{ userId: string; start: () => void; refuse: (error: Error) => void }> = [];
  const running = new Map<string, number>();
  let total = 0;
  let stopped = false;
  const fits = (userId: string) => {
    const { buildsMax, buildsPerAccount } = settings;
    return total < buildsMax && (running.get(userId) ?? 0) < buildsPerAccount;
  };
  function next() {
    for (let index = 0; !stopped && index < waiting.length; index++) {
      const entry = waiting[index]!;
      if (!fits(entry.userId)) continue;
      waiting.splice(index--, 1);
      total++;
      running.set(entry.userId, (running.get(entry.userId) ?? 0) + 1);
      entry.start();
    }
  }
  return {
    /** Runs `work` in its turn; `onQueued` hears when it has to wait. */
    async run<T>(userId: string, work: () => Promise<T>, onQueued: (ahead: number) => void): Promise<T> {
      await new Promise<void>((start, refuse) => {
        waiting.push({ userId, start, refuse });
        next();
        const ahead = waiting.findIndex((entry) => entry.start === start);
        if (ahead >= 0) onQueued(ahead);
      });
      try {
        return await work();
      } finally {
        total--;
        running.set(userId, running.get(userId)! - 1);
        next();
      }
    },

    /** Starts nothing more: every build still waiting fails with `reason`. */
    stop(reason: string) {
      stopped = true;
      for (const entry of waiting.splice(0)) entry.refuse(new BuildFailure(reason));
    },
  };
}

export function createLocalTemplateBuilder(options: LocalTemplateBuilderOptions): TemplateBuilder & { stop(): void } {
  const running = new Map<string, string[]>();
  const queue = buildQueue(options.settings);
  // Subdomains are never reused: one removed while a build of it ran (or waited) must not come back when it ends.
  const removedSites = new Set<string>();
  const buildsDir = join(options.pagesDir, '.builds');

  async function publish(subdomain: string, buildId: string, files: Array<{ path: string; source: string }>) {
    const staged = join(buildsDir, buildId);
    for (const file of files) {
      const target = join(staged, file.path);
      await mkdir(dirname(target), { recursive: true });
      await copyFile(file.source, target);
    }
    if (removedSites.has(subdomain)) {
      await rm(staged, { recursive: true, force: true });
      throw new BuildFailure(`the site ${subdomain} was removed while it was building; nothing was published`);
    }
    const link = join(options.pagesDir, subdomain);
    const previous = existsSync(link) ? await readlink(link).catch(() => undefined) : undefined;
    const temporary = `${link}.${buildId}.tmp`;
    await symlink(join('.builds', buildId), temporary);
    // rename(2) replaces the old link atomically: a request sees the old site or the new one, never a mix.
    await rename(temporary, link);
    if (previous && previous !== join('.builds', buildId)) await rm(join(options.pagesDir, previous), { recursive: true, force: true });
  }

  async function build(job: BuildJob, log: (line: string) => void): Promise<BuildOutcome> {
    const { settings } = options;
    const deadline = Date.now() + options.timeoutMs;
    await mkdir(options.workDir, { recursive: true });
    const work = await mkdtemp(join(options.workDir, `${job.buildId}-`));
    const checkout = join(work, 'src');
    const home = join(work, 'home');
    await mkdir(checkout);
    await mkdir(home);
    type Isolation = { egress?: { allowedOrigins: string[] }; scratchBytes?: number };
    const run = async (what: string, command: string, args: string[], cwd: string, env: Record<string, string>, isolated?: Isolation) => {
      log(`$ ${[command, ...args].join(' ')}`);
      let outOfSpace = false;
      const onLine = (line: string) => {
        outOfSpace ||= /No space left on device|ENOSPC/.test(line);
        log(line);
      };
      const result = await options.runner.run({
        command,
        args,
        cwd,
        env,
        timeoutMs: deadline - Date.now(),
        onLine,
        ...(isolated && { isolated: { writableDir: work, ...isolated } }),
      });
      if (result.timedOut) throw new BuildFailure(`the build ran past its limit of ${Math.round(options.timeoutMs / 1000)} s (during ${what}) and was stopped`);
      return { ...result, outOfSpace };
    };
    const step = async (...args: Parameters<typeof run>) => (await run(...args)).exitCode === 0;
    try {
      log(`fetching ${job.repository} at ${job.gitHash}`);
      await step('git init', 'git', ['init', '-q'], checkout, gitEnv(settings, home));
      const lines: string[] = [];
      const fetchLog = (line: string) => {
        lines.push(line);
        log(line);
      };
      const fetched = await options.runner.run({
        command: 'git',
        args: ['fetch', '--depth', '1', '--no-tags', job.repository, job.gitHash],
        cwd: checkout,
        env: gitEnv(settings, home),
        timeoutMs: deadline - Date.now(),
        onLine: fetchLog,
      });
      if (fetched.timedOut) throw new BuildFailure('fetching the repository ran past the build limit');
      if (fetched.exitCode !== 0) {
        const text = lines.join('\n');
        if (/not our ref|couldn't find remote ref|no such remote ref|unadvertised object/i.test(text))
          throw new BuildFailure(`commit ${job.gitHash} is not in the repository ${job.repository}`);
        throw new BuildFailure(`the repository ${job.repository} could not be fetched (it does not exist or is not reachable)`);
      }
      if (!(await step('checkout', 'git', ['checkout', '-q', 'FETCH_HEAD'], checkout, gitEnv(settings, home))))
        throw new BuildFailure('the commit could not be checked out');
      const { templateDir, manifest } = await readManifest(checkout, job.templatePath);
      log(`template.json read: build "${manifest.build.buildCommand}", output ${manifest.build.outputDirectory}`);
      if (existsSync(join(templateDir, 'package-lock.json')) || existsSync(join(templateDir, 'npm-shrinkwrap.json'))) {
        const registry = settings.npmRegistry;
        // In the environment, the registry overrides the repository's .npmrc: the guard lets exactly this one through.
        const env = cleanEnv(settings, home, { npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false', npm_config_registry: registry });
        const installed = await step('npm ci', 'npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], templateDir, env, {
          egress: { allowedOrigins: [registry] },
        });
        if (!installed) throw new BuildFailure('installing dependencies (npm ci) failed');
      }
      const env = cleanEnv(settings, home, { CI: 'true', NODE_ENV: 'production', ...manifest.build.environmentVariables, ...job.publicEnv });
      const built = await run('the build command', 'sh', ['-c', manifest.build.buildCommand], templateDir, env, {
        scratchBytes: settings.scratchMb * 1024 * 1024,
      });
      if (built.exitCode !== 0 && built.outOfSpace) throw new BuildFailure(`the build wrote past its ${settings.scratchMb} MB of scratch space`);
      if (built.exitCode !== 0) throw new BuildFailure('the build command failed (non-zero exit)');
      // In a sandbox the build ran on a copy; what it left there is the checkout now.
      const root = built.resultDir ?? work;
      const files = await collectOutput(join(root, 'src'), join(root, relative(work, templateDir)), manifest.build.outputDirectory);
      const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
      await publish(job.subdomain, job.buildId, files);
      log(`published ${files.length} files (${bytes} bytes) to ${job.subdomain}`);
      return { buildId: job.buildId, status: 'success', manifest, fileCount: files.length, bytes };
    } finally {
      await rm(work, { recursive: true, force: true });
      await rm(`${work}.result`, { recursive: true, force: true });
    }
  }

  return {
    async start(job) {
      const logs: string[] = [];
      running.set(job.buildId, logs);
      const log = (line: string) => void logs.push(line);
      const queued = (ahead: number) => log(`queued: the build limit is reached (${ahead} builds waiting ahead); it starts when one ends`);
      void queue
        .run(job.userId, () => build(job, log), queued)
        .catch((error: unknown): BuildOutcome => {
          if (error instanceof BuildFailure) {
            log(`build failed: ${error.message}`);
            return { buildId: job.buildId, status: 'failed', reason: error.message };
          }
          logger.error('template build crashed', { buildId: job.buildId, error: (error as Error).message });
          // Half-copied files of a crashed publish are never linked: the staged folder goes.
          void rm(join(buildsDir, job.buildId), { recursive: true, force: true });
          return { buildId: job.buildId, status: 'failed', reason: 'the builder failed unexpectedly' };
        })
        .then((outcome) => options.onOutcome({ ...outcome, logs }))
        .catch((error: unknown) => logger.error('recording a template build failed', { buildId: job.buildId, error: (error as Error).message }))
        .finally(() => running.delete(job.buildId));
      return { runId: job.buildId };
    },

    logs: async (build: BuildRecord) => (running.has(build.buildId) ? [...running.get(build.buildId)!] : undefined),

    /** The local platform is stopping: builds waiting their turn fail (the running ones end with their commands). */
    stop: () => queue.stop('the platform stopped before the build started; build again'),

    async removeSite(subdomain) {
      removedSites.add(subdomain);
      const link = join(options.pagesDir, subdomain);
      const target = await readlink(link).catch(() => undefined);
      await rm(link, { force: true });
      if (target) await rm(join(options.pagesDir, target), { recursive: true, force: true });
    },
  };
}
