// `platform flows create|list|run|pause|resume` and `platform events emit|list`.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { type PlatformClient, unwrap } from '../../typescript/src/index.js';
import { UsageError, clientFor, exitCodes, failedRun, idempotencyHeader, idempotencyKeyOption, optionsOf, output, parseJsonOption } from '../context.js';
import { resolveScript } from './scripts.js';

/** A flow run still going past the platform's synchronous wait (HTTP 202): its result, once the flow's history has it. */
async function flowRunEnd(client: PlatformClient, flowId: string, executionId: string): Promise<Record<string, unknown>> {
  for (let pause = 250; ; pause = Math.min(pause * 2, 2000)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    const flow = await unwrap(client.POST('/api/sdk/v1/flows/getFlow', { body: { flowId } }));
    const result = flow.executionResults.find((item) => item.executionId === executionId);
    if (result) return result;
  }
}

export function registerFlowCommands(program: Command): void {
  const flows = program.command('flows').description('time and event flows');

  flows
    .command('create')
    .description(
      'a time flow (--schedule and --script) or an event flow (--event-type, --conditions, and --script for a direct one or --prompt for an llm one)',
    )
    .requiredOption('--title <text>', 'title')
    .requiredOption('--description <text>', 'what the flow does')
    .option('--schedule <cron>', 'five-field cron, UTC (time flow)')
    .option('--event-type <type>', 'event type, e.g. chatapp.message (event flow)')
    .option('--conditions <json>', 'condition tree, e.g. {"field":"text","operator":"contains","value":"deploy"}')
    .option('--script <script>', 'the script (id or name) a time flow or direct event flow runs')
    .option('--prompt <text>', 'what the model does with the event (llm event flow)')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const client = clientFor(options);
      const common = { title: String(options.title), description: String(options.description) };
      const scriptId = options.script ? await resolveScript(options, String(options.script)) : undefined;
      let flow;
      if (options.schedule) {
        if (!scriptId) throw new UsageError('a time flow needs --script');
        flow = await unwrap(client.POST('/api/sdk/v1/flows/createTimeFlow', { body: { ...common, schedule: String(options.schedule), scriptId } }));
      } else if (options.eventType) {
        const conditions = parseJsonOption('conditions', options.conditions as string | undefined) ?? { operator: 'AND', conditions: [] };
        const direct = Boolean(scriptId);
        flow = await unwrap(
          client.POST('/api/sdk/v1/flows/createEventFlow', {
            body: {
              ...common,
              eventType: String(options.eventType),
              conditions,
              prompt: String(options.prompt ?? options.description),
              executionType: direct ? 'direct' : 'llm',
              ...(direct && { scriptId }),
            } as never,
          }),
        );
      } else throw new UsageError('give --schedule (time flow) or --event-type (event flow)');
      const warnings = ((flow as { warnings?: string[] }).warnings ?? []).map((warning) => `warning: ${warning}`);
      output(options, flow, () => [`created flow ${flow.id} (${flow.status}): ${flow.title}`, ...warnings]);
    });

  flows
    .command('list')
    .description('your flows')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const found = await unwrap(clientFor(options).POST('/api/sdk/v1/flows/searchFlows', { body: { detail: 'summary' } }));
      const items = (Array.isArray(found) ? found : found.flows) as Array<{ id: string; status: string; title: string }>;
      output(options, found, () => (items.length ? items.map((flow) => `${flow.id}  ${flow.status.padEnd(7)}  ${flow.title}`) : 'no flows yet'));
    });

  for (const [name, operation, verb] of [
    ['run', 'runFlow', 'ran'],
    ['pause', 'pauseFlow', 'paused'],
    ['resume', 'resumeFlow', 'resumed'],
  ] as const) {
    const flowCommand = flows.command(`${name} <flowId>`).description(`${name} a flow`);
    if (operation === 'runFlow') flowCommand.option(...idempotencyKeyOption);
    flowCommand.action(async (flowId: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const client = clientFor(options);
      let answer = (await unwrap(client.POST(`/api/sdk/v1/flows/${operation}`, { body: { flowId }, ...idempotencyHeader(options) }))) as Record<
        string,
        unknown
      >;
      if (operation === 'runFlow' && answer.status === 'running') answer = await flowRunEnd(client, flowId, String(answer.executionId));
      const error = answer.error as { code: string; message: string } | undefined;
      output(options, answer, () => [
        `${verb} flow ${flowId}${answer.status ? `: ${String(answer.status)}` : ''}`,
        ...(error ? [`${error.code}: ${error.message}`] : []),
        ...(answer.status === 'waiting' ? [`it waits on a durable run: platform runs list --parent ${String(answer.executionId)}`] : []),
      ]);
      if (operation === 'runFlow' && failedRun(answer.status)) process.exitCode = exitCodes.runFailed;
    });
  }

  const events = program.command('events').description('events of your user: publish them, read their history');

  events
    .command('list')
    .description('your events, newest first, each with what it ran (deliveries to subscribed scripts)')
    .option('--type <type>', 'only events of this type')
    .option('--source <source>', 'only events from this source')
    .option('--since <date>', 'a day (YYYY-MM-DD, UTC) or an ISO instant')
    .option('--until <date>', 'a day (YYYY-MM-DD, UTC) or an ISO instant')
    .option('--limit <n>', 'how many (1-100)', '20')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const query = {
        ...(options.type && { type: options.type }),
        ...(options.source && { source: options.source }),
        ...(options.since && { startDate: options.since }),
        ...(options.until && { endDate: options.until }),
        limit: Number(options.limit),
      };
      const page = await unwrap(clientFor(options).GET('/api/sdk/v1/events', { params: { query } }));
      output(options, page, () =>
        page.events.length
          ? page.events.flatMap((event) => [
              `${event.timestamp}  ${event.eventId}  ${event.type}  (${event.source})`,
              ...event.deliveries.map(
                (delivery) =>
                  `  -> ${delivery.wait ? `wait ${delivery.wait} of` : delivery.scriptId} ${delivery.result}${delivery.executionId ? ` ${delivery.executionId} ${delivery.status}` : ''}${delivery.reason ? `: ${delivery.reason}` : ''}`,
              ),
            ])
          : 'no events',
      );
    });

  events
    .command('emit <type>')
    .description('publish an event: --data for its fields, or --file for a whole event object (JSON)')
    .option('--data <json>', 'fields of the event object, e.g. {"content":{"text":"hi"}}')
    .option('--file <path>', 'a JSON file holding the event object')
    .option(...idempotencyKeyOption)
    .action(async (type: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const fromFile = options.file ? (parseJsonOption('file', readFileSync(String(options.file), 'utf8')) as Record<string, unknown>) : {};
      const fields = (parseJsonOption('data', options.data as string | undefined) ?? {}) as Record<string, unknown>;
      const published = await unwrap(
        clientFor(options).POST('/api/sdk/v1/events', { body: { ...fromFile, ...fields, type } as never, ...idempotencyHeader(options) }),
      );
      output(options, published, () => `published ${type} as ${published.eventId}`);
    });
}
