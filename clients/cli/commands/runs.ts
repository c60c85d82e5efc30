// `platform runs list|get|cancel|rerun|replay`: reading runs of scripts and flows, and operating durable runs.
import { type Command, Option } from 'commander';
import { type BranchRow, type StepRow, groupSteps, unwrap } from '../../typescript/src/index.js';
import { UsageError, clientFor, optionsOf, output, parseJsonOption } from '../context.js';
import { resolveScript } from './scripts.js';

type ReplayStatus = 'success' | 'error' | 'timeout' | 'cancelled' | 'completed' | 'failed';
/** Every state a run can be in, in the SDK's words. */
const runStatuses = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'timeout', 'skipped', 'expired'] as const;

interface Step {
  name: string;
  type: string;
  status: string;
  kept?: boolean;
  childExecutionId?: string;
  error?: { code?: string; message?: string } | null;
}

/** A step's line: name, type, status, kept, its child run, its error. */
const stepLine = (label: string, step: Step) =>
  [
    `${label}  ${step.type}  ${step.status}`,
    step.kept ? '  (kept from the earlier run)' : '',
    step.childExecutionId ? `  child ${step.childExecutionId}` : '',
    step.error ? `  ${step.error.code}: ${step.error.message}` : '',
  ].join('');

/** The steps as the console's timeline nests them: a map's or parallel's branches indented under it, their steps under each. */
function stepLines(rows: StepRow<Step>[], indent = '  '): string[] {
  const branchLines = (branch: BranchRow<Step>) => [
    `${indent}  ${branch.name}  branch  ${branch.step?.status ?? 'running'}${branch.step?.kept ? '  (kept from the earlier run)' : ''}`,
    ...stepLines(branch.rows, `${indent}    `),
  ];
  return rows.flatMap((row) => [`${indent}${stepLine(row.label, row.step)}`, ...(row.branches ?? []).flatMap(branchLines)]);
}

export function registerRunCommands(program: Command): void {
  const runs = program.command('runs').description('your runs of scripts and flows: list, read one, cancel, re-run, replay');

  runs
    .command('list')
    .description('your runs of scripts and flows, newest first')
    .addOption(new Option('--kind <kind>', 'only runs of scripts or of flows').choices(['script', 'flow']))
    .addOption(new Option('--status <status>', 'only runs in this state').choices(runStatuses))
    .option('--parent <executionId>', 'only the runs this run started')
    .option('--script <scriptId>', "only this script's runs (with --status queued: its queue)")
    .option('--flow <flowId>', "only this flow's runs")
    .option('--limit <n>', 'at most this many (1-100)', '20')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const query = {
        limit: Number(options.limit),
        ...(options.kind && { kind: options.kind as 'script' | 'flow' }),
        ...(options.status && { status: options.status as (typeof runStatuses)[number] }),
        ...(options.parent && { parentExecutionId: options.parent }),
        ...(options.script && { scriptId: options.script }),
        ...(options.flow && { flowId: options.flow }),
      };
      const list = await unwrap(clientFor(options).GET('/api/sdk/v1/executions', { params: { query } }));
      output(options, list, () =>
        list.executions.length
          ? list.executions.map(
              (run) =>
                `${run.executionId}  ${run.kind.padEnd(6)}  ${run.status.padEnd(9)}  ${run.startedAt}  ${run.flowId ?? run.scriptId ?? ''}${run.queue ? `  waits for ${run.queue.reason}${run.queue.key ? ` (${run.queue.key})` : ''}${run.queue.until ? ` until ${run.queue.until}` : ''}` : ''}${run.error ? `  ${run.error.code}: ${run.error.message}` : ''}`,
            )
          : 'no runs',
      );
    });

  runs
    .command('get <executionId>')
    .description('one run of a script or a flow: kind, status and reason, its family, its steps with branches and child runs')
    .action(async (executionId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const client = clientFor(options);
      const [run, children] = await Promise.all([
        unwrap(client.GET('/api/sdk/v1/executions/{executionId}', { params: { path: { executionId } } })),
        unwrap(client.GET('/api/sdk/v1/executions', { params: { query: { parentExecutionId: executionId, limit: 100 } } })),
      ]);
      const steps = run.steps as unknown as Step[];
      const childIds = [
        ...new Set([
          ...children.executions.map((child) => child.executionId),
          ...steps.flatMap((step) => (step.childExecutionId ? [step.childExecutionId] : [])),
        ]),
      ];
      output(options, { ...run, children: childIds }, () => [
        `${run.executionId}  ${run.kind} run of ${run.flowId ? `flow ${run.flowId}` : `script ${run.scriptId}`}`,
        `status    ${run.status}${run.error ? `: ${run.error.code}: ${run.error.message}` : ''}`,
        `trigger   ${run.trigger.type}${run.trigger.source ? ` (${run.trigger.source})` : ''}`,
        `started   ${run.startedAt}${run.endedAt ? `, ended ${run.endedAt}` : ''}, ${run.duration} ms, cost ${run.cost}`,
        ...(run.parentExecutionId ? [`parent    ${run.parentExecutionId}`] : []),
        ...(run.rootExecutionId !== run.executionId && run.rootExecutionId !== run.parentExecutionId ? [`root      ${run.rootExecutionId}`] : []),
        ...(run.origin ? [`re-run of ${run.origin.executionId}${run.origin.fromStep ? ` from step ${run.origin.fromStep}` : ''}`] : []),
        ...(steps.length ? ['steps', ...stepLines(groupSteps(steps))] : []),
        ...(childIds.length ? ['children', ...childIds.map((id) => `  ${id}`)] : []),
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
    .command('callback <executionId> <callbackId>')
    .description("complete a waiting run's callback with --result (JSON) or --error <message>: the run continues")
    .option('--result <json>', 'the result the run receives')
    .option('--error <message>', 'fail the wait with this message instead')
    .action(async (executionId: string, callbackId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      if ((options.result === undefined) === (options.error === undefined)) throw new UsageError('give one of --result and --error');
      const body = options.error === undefined ? { result: parseJsonOption('result', options.result) } : { error: { message: options.error } };
      const answer = await unwrap(
        clientFor(options).POST('/api/sdk/v1/executions/{executionId}/callbacks/{callbackId}', { params: { path: { executionId, callbackId } }, body }),
      );
      output(options, answer, () => `callback ${callbackId} of ${executionId} completed: ${answer.message}`);
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
