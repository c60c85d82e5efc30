// What the templates service needs from outside: the builder, where pages are served, and the scripts and
// resources areas for requirements and install. Adapters live in functions/adapters/{aws,local}.
import type { Caller } from '#platform/caller.js';
import type { BuildRecord } from './model.js';

/** Everything a builder needs to produce one site: the commit, where template.json is, the page's public values. */
export interface BuildJob {
  buildId: string;
  /** The account the build runs for: builds queue per account. */
  userId: string;
  repository: string;
  gitHash: string;
  templatePath: string;
  subdomain: string;
  /** NEXT_PUBLIC_* values (an installation's customization); empty for the template's own build. */
  publicEnv: Record<string, string>;
}

/**
 * Runs builds: fetch the commit, read template.json, install dependencies, build, publish the output under the
 * subdomain only once everything succeeded. The end is reported later through `BuildOutcome` (a callback locally,
 * a CodeBuild state change over EventBridge on AWS).
 */
export interface TemplateBuilder {
  start(job: BuildJob): Promise<{ runId: string }>;
  /** Log lines so far; undefined when the runner keeps none beyond what the record holds. */
  logs(build: BuildRecord): Promise<string[] | undefined>;
  /** Stops serving a subdomain and deletes its files (an uninstalled page). */
  removeSite(subdomain: string): Promise<void>;
}

/** Where a subdomain's site answers, from the address the API was reached at (local ports change between runs). */
export interface PagesHost {
  pageUrl(subdomain: string, apiBaseUrl: string): string;
  /** The path form `/pages/<sub>/`, always available. */
  pathUrl(subdomain: string, apiBaseUrl: string): string;
}

export interface DependencyInfo {
  id: string;
  name: string | null;
  /** Published in the marketplace (resources), or installable by this user (scripts: listed or their own). */
  available: boolean;
}

/** The scripts and resources areas, seen from templates. */
export interface TemplateDependencies {
  resources(userId: string, resourceIds: string[]): Promise<DependencyInfo[]>;
  scripts(userId: string, scriptIds: string[]): Promise<DependencyInfo[]>;
  /** 'preexisting' when the user had it installed already (the template's uninstall then leaves it). */
  installResource(caller: Caller, resourceId: string, baseUrl: string): Promise<'installed' | 'preexisting'>;
  uninstallResource(caller: Caller, resourceId: string): Promise<void>;
  installScript(userId: string, scriptId: string, customization: Record<string, string | number | boolean>): Promise<'installed' | 'preexisting'>;
  uninstallScript(userId: string, scriptId: string): Promise<void>;
}

export interface TemplateSettings {
  /** How long `POST .../build` and install wait for the build before answering `building`. */
  buildWaitMs: number;
  /** file:// repositories: local mode only (a Lambda has no business reading its own disk), and only when the operator allows them. */
  allowFileRepositories: boolean;
}

/**
 * Runs one command of a local build (git, npm, the template's build command) in a child process with exactly the
 * given environment and a time limit, killing its whole process tree at the limit. An `isolated` command runs the
 * repository's own code (npm ci, the build command): it goes into the OS sandbox scripts use, seeing only
 * `writableDir` of the platform's files, and no network unless `egress` is given.
 */
export interface BuildCommandRunner {
  run(request: {
    command: string;
    args: string[];
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    onLine(line: string): void;
    /**
     * `egress`: the command may reach exactly these registry origins and public addresses, through the egress guard.
     * `scratchBytes`: it works on a copy of `writableDir` in a space of that size; what it leaves there comes back
     * as `resultDir`.
     */
    isolated?: { writableDir: string; egress?: { allowedOrigins: string[] }; scratchBytes?: number };
  }): Promise<{ exitCode: number | null; timedOut: boolean; resultDir?: string }>;
}
