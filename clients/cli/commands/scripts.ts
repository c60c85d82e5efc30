// `platform scripts push|run|list` and `platform logs`: scripts from a folder with a small manifest, runs and their logs,
// followed while they run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { type PlatformClient, followRun as runEvents, scriptStateLabel, unwrap, versionLabel } from '../../typescript/src/index.js';
import {
  type GlobalOptions,
  UsageError,
  clientFor,
  exitCodes,
  failedRun,
  idempotencyHeader,
  idempotencyKeyOption,
  optionsOf,
  output,
  parseJsonOption,
  settings,
} from '../context.js';
import { waitingLines } from '../waits.js';

/** `script.json` in the folder: `name` is required; `main` defaults to index.js (node) or main.py (python). */
interface Manifest {
  name: string;
  description?: string;
  runtime?: 'nodejs18' | 'python3.11';
  main?: string;
  config?: Record<string, unknown>;
  tags?: string[];
  category?: string;
}

export function readScriptFolder(dir: string): { manifest: Manifest; runtime: 'nodejs18' | 'python3.11'; code: string } {
  const manifestPath = join(dir, 'script.json');
  if (!existsSync(manifestPath))
    throw new UsageError(
      `${manifestPath} not found: a script folder holds script.json ({"name": "...", "runtime": "nodejs18" | "python3.11", "main": "index.js"}) and the code`,
    );
  const manifest = parseJsonOption('manifest', readFileSync(manifestPath, 'utf8')) as Manifest;
  if (typeof manifest?.name !== 'string') throw new UsageError(`${manifestPath}: "name" is required`);
  const main = manifest.main ?? (manifest.runtime === 'python3.11' || existsSync(join(dir, 'main.py')) ? 'main.py' : 'index.js');
  const runtime = manifest.runtime ?? (main.endsWith('.py') ? 'python3.11' : 'nodejs18');
  const codePath = join(dir, main);
  if (!existsSync(codePath)) throw new UsageError(`${codePath} not found: set "main" in script.json`);
  return { manifest, runtime, code: readFileSync(codePath, 'utf8') };
}

/** A script by id, or by name among the caller's own. */
export async function resolveScript(options: GlobalOptions, idOrName: string): Promise<string> {
  if (idOrName.startsWith('scr_')) return idOrName;
  const { scripts } = await unwrap(clientFor(options).GET('/api/sdk/v1/scripts', { params: { query: { limit: 100 } } }));
  const found = scripts.find((script) => script.name === idOrName);
  if (!found) throw new UsageError(`no script of yours is named ${idOrName}`);
  return found.id;
}

const pauseFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const getExecution = (client: PlatformClient, executionId: string) => unwrap(client.POST('/api/sdk/v1/scripts/getExecution', { body: { executionId } }));
type EndedRun = Awaited<ReturnType<typeof getExecution>>;

/** A run still going past the platform's synchronous wait (HTTP 202, status running): its end, asked for until it has one. */
async function untilEnded(client: PlatformClient, answer: EndedRun | { executionId: string; status: 'queued' | 'running' | 'waiting' }): Promise<EndedRun> {
  let run = answer;
  for (let pause = 250; !('logs' in run) || run.status === 'running' || run.status === 'queued'; pause = Math.min(pause * 2, 2000)) {
    await pauseFor(pause);
    run = await getExecution(client, run.executionId);
  }
  return run;
}

export function registerScriptCommands(program: Command): void {
  const scripts = program.command('scripts').description('create, deploy and run scripts');

  scripts
    .command('push <dir>')
    .description(
      'create the script of a folder (script.json + code), or add its code as a new version, then deploy it; code equal to the deployed version changes nothing',
    )
    .action(async (dir: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const client = clientFor(options);
      const { manifest, runtime, code } = readScriptFolder(dir);
      const { scripts: mine } = await unwrap(client.GET('/api/sdk/v1/scripts', { params: { query: { limit: 100 } } }));
      const existing = mine.find((script) => script.name === manifest.name);
      let scriptId: string;
      let created = false;
      if (existing?.activeVersionNumber != null) {
        const deployed = await unwrap(
          client.GET('/api/sdk/v1/scripts/{scriptId}/versions/{version}/code', {
            params: { path: { scriptId: existing.id, version: String(existing.activeVersionNumber) } },
          }),
        );
        if (deployed.code === code) {
          const unchanged = {
            scriptId: existing.id,
            created: false,
            unchanged: true,
            deployment: { version: existing.activeVersionNumber, semver: existing.activeVersion },
          };
          output(
            options,
            unchanged,
            () =>
              `unchanged script ${manifest.name} (${existing.id}): version ${existing.activeVersion ?? existing.activeVersionNumber} is deployed with this code`,
          );
          return;
        }
      }
      if (existing) {
        scriptId = existing.id;
        await unwrap(client.POST('/api/sdk/v1/scripts/createVersion', { body: { scriptId, code, commitMessage: `pushed from ${dir}` } }));
      } else {
        const script = await unwrap(
          client.POST('/api/sdk/v1/scripts/createScript', {
            body: {
              name: manifest.name,
              description: manifest.description,
              runtime,
              code,
              config: manifest.config as never,
              tags: manifest.tags,
              category: manifest.category as never,
            },
          }),
        );
        scriptId = script.id;
        created = true;
      }
      const deployment = await unwrap(client.POST('/api/sdk/v1/scripts/deployScript', { body: { scriptId } }));
      output(
        options,
        { scriptId, created, deployment },
        () => `${created ? 'created' : 'updated'} script ${manifest.name} (${scriptId}), deployed ${versionLabel(deployment.version, deployment.semver)}`,
      );
    });

  scripts
    .command('run <script>')
    .description('run a script (id or name) with --data and print its result')
    .option('--data <json>', 'event data, a JSON object', '{}')
    .option(...idempotencyKeyOption)
    .action(async (script: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const scriptId = await resolveScript(options, script);
      const data = parseJsonOption('data', options.data) as Record<string, unknown>;
      const client = clientFor(options);
      const started = await unwrap(client.POST('/api/sdk/v1/scripts/executeScript', { body: { scriptId, data }, ...idempotencyHeader(options) }));
      const run = await untilEnded(client, started);
      output(options, run, () => [
        `${run.executionId} ${run.status} in ${run.duration} ms`,
        ...(run.error ? [`${run.error.code}: ${run.error.message}`] : run.status === 'waiting' ? waitingLines(run) : [JSON.stringify(run.output, null, 2)]),
        ...run.logs.map((line) => `| ${line}`),
      ]);
      if (failedRun(run.status)) process.exitCode = exitCodes.runFailed;
    });

  scripts
    .command('list')
    .description('your scripts')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const list = await unwrap(clientFor(options).GET('/api/sdk/v1/scripts', { params: { query: { limit: 100 } } }));
      output(options, list, () =>
        list.scripts.length
          ? list.scripts.map(
              (script) =>
                `${script.id}  ${scriptStateLabel({ ...script, activeVersion: script.activeVersionNumber, activeSemver: script.activeVersion }).padEnd(32)}  ${script.name}`,
            )
          : 'no scripts yet',
      );
    });

  program
    .command('logs [executionId]')
    .description('the logs of one run, or with --script the runs of a script; --follow prints lines as they are printed')
    .option('--script <script>', 'a script id or name')
    .option('--follow', 'one run: print its lines until it ends; --script: also wait for new runs until interrupted')
    .action(async (executionId: string | undefined, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const client = clientFor(options);
      if (executionId) {
        if (options.follow) {
          if (failedRun(await followRun(options, executionId))) process.exitCode = exitCodes.runFailed;
          return;
        }
        const run = await unwrap(client.POST('/api/sdk/v1/scripts/getExecution', { body: { executionId } }));
        const labelled = run.logLines.some(inDurableRun);
        output(options, run, () => [
          `${run.executionId} ${run.status} in ${run.duration} ms`,
          ...(run.error ? [`${run.error.code}: ${run.error.message}`] : []),
          ...run.logLines.map((line) => (labelled ? labelledLine(line) : line.text)),
        ]);
        return;
      }
      if (!options.script) throw new UsageError('give an execution id, or --script <id or name>');
      const scriptId = await resolveScript(options, options.script);
      const seen = new Set<string>();
      for (;;) {
        const { executions } = await unwrap(client.POST('/api/sdk/v1/scripts/getExecutions', { body: { scriptId, limit: 20 } }));
        for (const item of executions.reverse()) {
          if (seen.has(item.executionId) || (item.status === 'running' && !options.follow)) continue;
          seen.add(item.executionId);
          if (!options.json) console.log(`--- ${item.executionId} (${item.createdAt})`);
          await followRun(options, item.executionId);
        }
        if (!options.follow) return;
        await new Promise((resolve) => setTimeout(resolve, newRunPollMs));
      }
    });
}

interface LogLine {
  text: string;
  invocation: number;
  step?: string;
}

/** A line a resumed invocation or a step printed: the run's lines are then labelled with where they come from. */
const inDurableRun = (line: LogLine) => line.invocation > 1 || line.step !== undefined;
/** `[#2 charge] text`: the invocation (1 is the run's first) and the step the line was printed in. */
const labelledLine = (line: LogLine) => `[#${line.invocation}${line.step === undefined ? '' : ` ${line.step}`}] ${line.text}`;

/** How often `logs --script --follow` looks for new runs of the script. */
const newRunPollMs = 1000;

/** Prints a run's log lines as they come (its event stream), then how it ended; the status it ended with. */
async function followRun(options: GlobalOptions, executionId: string): Promise<string> {
  const { baseUrl, apiKey } = settings(options);
  for await (const event of runEvents({ baseUrl, apiKey }, executionId)) {
    if (event.type === 'log') {
      if (options.json) console.log(JSON.stringify({ executionId, line: event.text, invocation: event.invocation, step: event.step }));
      else console.log(inDurableRun(event) ? labelledLine(event) : event.text);
    }
    if (event.type !== 'end') continue;
    output(
      options,
      { executionId, status: event.status, duration: event.duration, error: event.error },
      () => `=== ${executionId} ${event.status} in ${event.duration} ms${event.error ? `: ${event.error.code}: ${event.error.message}` : ''}`,
    );
    return event.status;
  }
  throw new Error(`the event stream of ${executionId} closed before the run ended`);
}
