// `platform runs get|cancel|rerun|replay`: reading and operating durable runs.
import type { Command } from 'commander';
import { unwrap } from '../../typescript/src/index.js';
import { clientFor, optionsOf, output } from '../context.js';
import { resolveScript } from './scripts.js';

type ReplayStatus = 'success' | 'error' | 'timeout' | 'cancelled' | 'completed' | 'failed';
interface TimelineStep {
  name: string;
  type: string;
  status: string;
  childExecutionId?: string;
}

/**
 * A run's steps as a timeline: a map's or parallel's branch checkpoints (`<name>/<index>/<inner>`) indented under it,
 * a child run (`invoke`) named by its id.
 */
export function timeline(steps: TimelineStep[]): string[] {
  const fanOuts = steps.filter((step) => step.type === 'map' || step.type === 'parallel').map((step) => `${step.name}/`);
  const depthOf = (name: string) => fanOuts.filter((prefix) => name.startsWith(prefix)).length;
  return steps.map((step) => {
    const child = step.childExecutionId ? ` -> child run ${step.childExecutionId}` : '';
    return `${'  '.repeat(depthOf(step.name) + 1)}${step.name} [${step.type}] ${step.status}${child}`;
  });
}

export function registerRunCommands(program: Command): void {
  const runs = program.command('runs').description('read and operate runs: get, cancel, re-run, replay');

  runs
    .command('get <executionId>')
    .description('one run: its status, parent run if it is a child run, and its steps (branches indented, child runs by id)')
    .action(async (executionId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const run = await unwrap(clientFor(options).POST('/api/sdk/v1/scripts/getExecution', { body: { executionId } }));
      output(options, run, () => [
        `${run.executionId} ${run.status} in ${run.duration} ms`,
        ...(run.parentExecutionId ? [`child of ${run.parentExecutionId} (root ${run.rootExecutionId})`] : []),
        ...(run.error ? [`${run.error.code}: ${run.error.message}`] : []),
        ...(run.steps.length ? ['steps:', ...timeline(run.steps)] : []),
      ]);
    });

  runs
    .command('cancel <executionId>')
    .description('stop a durable run that is running or waiting')
    .action(async (executionId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const run = await unwrap(clientFor(options).POST('/api/sdk/v1/executions/{executionId}/cancel', { params: { path: { executionId } } }));
      output(options, run, () => `${run.executionId} ${run.status}`);
    });

  runs
    .command('rerun <executionId>')
    .description('run again with the same data as a new execution; --from-step keeps the stored results of the steps before it')
    .option('--from-step <name>', 'the first step to run again')
    .action(async (executionId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const run = await unwrap(
        clientFor(options).POST('/api/sdk/v1/executions/{executionId}/rerun', {
          params: { path: { executionId } },
          body: { ...(options.fromStep && { fromStep: options.fromStep }) },
        }),
      );
      output(options, run, () => `re-run of ${executionId}: ${run.executionId} ${run.status}`);
    });

  runs
    .command('replay')
    .description('re-run your ended runs of a script that match the filters (at most 100 per call)')
    .requiredOption('--script <script>', 'a script id or name')
    .option('--status <status>', 'only runs that ended so: success, error, timeout, cancelled, completed or failed')
    .option('--from <instant>', 'only runs started at or after this ISO instant')
    .option('--to <instant>', 'only runs started at or before this ISO instant')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const scriptId = await resolveScript(options, options.script!);
      const body = {
        scriptId,
        ...(options.status && { status: options.status as ReplayStatus }),
        ...(options.from && { from: options.from }),
        ...(options.to && { to: options.to }),
      };
      const replayed = await unwrap(clientFor(options).POST('/api/sdk/v1/executions/replay', { body }));
      output(options, replayed, () =>
        replayed.executionIds.length ? [`replayed ${replayed.executionIds.length} run(s):`, ...replayed.executionIds] : 'no runs matched',
      );
    });
}
