// Counting what the platform asks DynamoDB: a middleware on the platform's own client, for tests that bound reads.
import { dynamo } from '../../functions/platform/dynamo.js';
import { newId } from '../../functions/platform/ids.js';

export interface SentCommand {
  command: string;
  /** The table, or the tables of a batch joined by commas. */
  table: string;
}

/** The commands the platform's DynamoDB client sends while `work` runs, in order. */
export async function commandsDuring<T>(work: () => Promise<T>): Promise<{ value: T; commands: SentCommand[] }> {
  const commands: SentCommand[] = [];
  const name = `count-commands-${newId('mw')}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string; RequestItems?: Record<string, unknown> };
      commands.push({ command: context.commandName ?? '', table: input.TableName ?? Object.keys(input.RequestItems ?? {}).join(',') });
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { value: await work(), commands };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
}
