// `platform runs cancel|rerun|replay`: operating durable runs.
import type { Command } from 'commander';
import { unwrap } from '../../typescript/src/index.js';
import { clientFor, optionsOf, output } from '../context.js';
import { resolveScript } from './scripts.js';

type ReplayStatus = 'success' | 'error' | 'timeout' | 'cancelled' | 'completed' | 'failed';

export function registerRunCommands(program: Command): void {
  const runs = program.command('runs').description('operate runs: cancel, re-run, replay');

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
