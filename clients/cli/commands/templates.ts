// `platform templates build|install`: start a build (or an installation's page build) and print its log lines as they
// come, then how it ended.
import type { Command } from 'commander';
import { unwrap } from '../../typescript/src/index.js';
import { type GlobalOptions, UsageError, clientFor, optionsOf, output } from '../context.js';

interface Build {
  buildId: string;
  buildStatus: 'building' | 'success' | 'failed';
  logs: string[];
  cdnUrl: string | null;
  /** The same page under the API's own host: opens without resolving `<sub>.localhost`. */
  cdnPathUrl?: string | null;
  reason: string | null;
}

/** Seconds each read of a running build waits for its end: short, so new log lines show soon. */
const pollSeconds = 2;

/** Prints the build's log lines as they come (not with --json) and answers the ended build. */
async function followBuild(options: GlobalOptions, templateId: string, first: Build): Promise<Build> {
  let build = first;
  let printed = 0;
  for (;;) {
    if (!options.json) for (const line of build.logs.slice(printed)) console.log(`| ${line}`);
    printed = Math.max(printed, build.logs.length);
    if (build.buildStatus !== 'building') return build;
    build = await unwrap(
      clientFor(options).GET('/api/sdk/v1/templates/{templateId}/builds/{buildId}', {
        params: { path: { templateId, buildId: build.buildId }, query: { wait: pollSeconds } },
      }),
    );
  }
}

/** A page's URL, with its path form where the platform gives one (local mode: any client opens that). */
const pageUrls = (url: string | null, pathUrl?: string | null) => (pathUrl && pathUrl !== url ? `${url} or ${pathUrl}` : `${url}`);

const ended = (build: Build) =>
  build.buildStatus === 'success' ? `built: ${pageUrls(build.cdnUrl, build.cdnPathUrl)}` : `build failed: ${build.reason ?? 'see the log above'}`;

/** `key=value` of --set: numbers and booleans as such, the rest as text. */
function customizationOf(pairs: string[]): Record<string, string | number | boolean> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--set ${pair}: write key=value`);
      const raw = pair.slice(at + 1);
      const value = raw === 'true' ? true : raw === 'false' ? false : raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
      return [pair.slice(0, at), value];
    }),
  );
}

export function registerTemplateCommands(program: Command): void {
  const templates = program.command('templates').description('template pages: build and install');

  templates
    .command('build <templateId>')
    .description('build a version of your template (default the newest) and print its log as it comes')
    .option('--version <semver>', 'the version to build')
    .action(async (templateId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const started = await unwrap(
        clientFor(options).POST('/api/sdk/v1/templates/{templateId}/build', {
          params: { path: { templateId } },
          body: { ...(options.version && { version: options.version }), wait: 0 },
        }),
      );
      const build = await followBuild(options, templateId, started);
      output(options, build, () => ended(build));
      if (build.buildStatus === 'failed') process.exitCode = 1;
    });

  templates
    .command('install <templateId>')
    .description('install a template: its scripts, resources and a page of your own, printing the page build as it comes')
    .option('--set <key=value...>', 'customization values, e.g. --set title=Shop accentColor=#ff8800', [])
    .action(async (templateId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command) as ReturnType<typeof optionsOf> & { set: string[] };
      const installation = await unwrap(
        clientFor(options).POST('/api/sdk/v1/templates/{templateId}/install', {
          params: { path: { templateId } },
          body: { customization: customizationOf(options.set) },
        }),
      );
      const build = await followBuild(
        options,
        templateId,
        await unwrap(
          clientFor(options).GET('/api/sdk/v1/templates/{templateId}/builds/{buildId}', { params: { path: { templateId, buildId: installation.buildId } } }),
        ),
      );
      output(options, { ...installation, buildStatus: build.buildStatus }, () => [
        `installed ${templateId} as ${installation.installationId} (version ${installation.version})`,
        `page: ${pageUrls(installation.pageUrl, installation.pagePathUrl)}`,
        ended(build),
      ]);
      if (build.buildStatus === 'failed') process.exitCode = 1;
    });
}
