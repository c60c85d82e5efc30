// Builds of templates and of installations' pages: start one, answer at its end or at the wait bound with
// `building`, and record its outcome. The served site changes only on success (the builder's
// publish step), so a failed build leaves the previous good one serving.
import type { Clock } from '#platform/clock.js';
import { newId } from '#platform/ids.js';
import { type BuildOutcome, type BuildRecord, buildView } from './model.js';
import type { BuildJob, PagesHost, TemplateBuilder, TemplateSettings } from './ports.js';
import type { TemplateStore } from './store.js';

/** A build item holds at most this much log text (DynamoDB items stop at 400 KB); the tail is what explains a failure. */
const maxLogChars = 200_000;
const maxLineChars = 2_000;

export function capLogs(lines: string[]): string[] {
  const clipped = lines.map((line) => (line.length > maxLineChars ? `${line.slice(0, maxLineChars)}…` : line));
  let total = 0;
  let first = clipped.length;
  while (first > 0 && total + clipped[first - 1]!.length <= maxLogChars) total += clipped[--first]!.length;
  return first === 0 ? clipped : [`[${first} earlier lines dropped]`, ...clipped.slice(first)];
}

export interface BuildServiceDeps {
  store: TemplateStore;
  builder: TemplateBuilder;
  pages: PagesHost;
  settings: TemplateSettings;
  clock: Clock;
  /** Waits between reads of a running build; injectable so unit tests need no timers. */
  pause?: (ms: number) => Promise<void>;
}

export function createBuildService(deps: BuildServiceDeps) {
  const { store, builder, pages, settings, clock } = deps;
  const pause = deps.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  async function logsOf(build: BuildRecord): Promise<string[]> {
    if (build.status !== 'building') return build.logs;
    return capLogs((await builder.logs(build)) ?? build.logs);
  }

  return {
    get: (buildId: string) => store.getBuild(buildId),

    async start(job: Omit<BuildJob, 'buildId'> & { templateId: string; userId: string; installationId: string | null; version: string }): Promise<BuildRecord> {
      const build: BuildRecord = {
        buildId: newId('bld'),
        templateId: job.templateId,
        userId: job.userId,
        installationId: job.installationId,
        version: job.version,
        gitHash: job.gitHash,
        repository: job.repository,
        templatePath: job.templatePath,
        subdomain: job.subdomain,
        publicEnv: job.publicEnv,
        status: 'building',
        reason: null,
        buildOutput: null,
        cdnUrl: null,
        manifest: null,
        runId: null,
        logs: [],
        startedAt: clock.nowIso(),
        finishedAt: null,
      };
      await store.putBuild(build);
      const { runId } = await builder.start({ ...job, buildId: build.buildId });
      await store.setRunId(build.buildId, runId);
      return { ...build, runId };
    },

    /** The build once it ended, or as it stands when the wait bound passes. */
    async awaitEnd(buildId: string, boundMs = settings.buildWaitMs): Promise<BuildRecord> {
      const deadline = Date.now() + boundMs;
      for (let interval = 50; ; interval = Math.min(interval * 2, 500)) {
        const build = (await store.getBuild(buildId))!;
        if (build.status !== 'building' || Date.now() >= deadline) return build;
        await pause(Math.min(interval, Math.max(0, deadline - Date.now())));
      }
    },

    /** What a caller asked to wait (ms), within the platform's bound. */
    waitWithin: (wantedMs: number | undefined) => Math.min(wantedMs ?? Infinity, settings.buildWaitMs),

    async view(build: BuildRecord, apiBaseUrl: string) {
      const built = build.status === 'success';
      return {
        ...buildView(build, await logsOf(build)),
        cdnUrl: built ? pages.pageUrl(build.subdomain, apiBaseUrl) : null,
        cdnPathUrl: built ? pages.pathUrl(build.subdomain, apiBaseUrl) : null,
      };
    },

    /** Records a build's end once (a repeated delivery changes nothing) and moves its template or installation on. */
    async finish(outcome: BuildOutcome & { logs?: string[] }): Promise<BuildRecord | undefined> {
      const running = await store.getBuild(outcome.buildId);
      if (running?.status !== 'building') return undefined;
      const logs = capLogs(outcome.logs ?? (await builder.logs(running)) ?? running.logs);
      const success = outcome.status === 'success';
      const buildOutput = success ? `${outcome.fileCount ?? 0} files, ${outcome.bytes ?? 0} bytes published to ${running.subdomain}` : null;
      const now = clock.nowIso();
      const movesOn = running.installationId
        ? {
            buildId: running.buildId,
            buildStatus: outcome.status,
            updatedAt: now,
            // An upgrade moves the installation only when its new page is built; a failed one leaves it pinned.
            ...(success && { version: running.version, gitHash: running.gitHash }),
          }
        : {
            buildId: running.buildId,
            buildStatus: outcome.status,
            updatedAt: now,
            ...(success && { builtVersion: running.version, buildOutput, manifest: outcome.manifest ?? null }),
          };
      const build = await store.finishBuild(
        running,
        {
          status: outcome.status,
          reason: success ? null : (outcome.reason ?? 'the build failed'),
          buildOutput,
          manifest: outcome.manifest ?? null,
          logs,
          finishedAt: now,
        },
        movesOn,
      );
      return build;
    },
  };
}

export type BuildService = ReturnType<typeof createBuildService>;
