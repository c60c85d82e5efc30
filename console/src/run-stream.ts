// The run page's live view: one event stream per run page (the typed client's followRun, which reconnects with
// Last-Event-ID), merged into the run's record as the page holds it.
import { type RunEvent, followRun } from '../../clients/typescript/src/index';
import { storedKey } from './api';
import type { Rec } from './ui';

/** Calls `onEvent` for each event of the run until it ends, the page leaves (`signal`), or the stream is refused. */
export async function followRunLive(executionId: string, onEvent: (event: RunEvent) => void, signal: AbortSignal): Promise<void> {
  for await (const event of followRun({ baseUrl: location.origin, apiKey: storedKey() }, executionId, { signal })) onEvent(event);
}

/** The record with a log line or the steps of an event; a line the record already has is left as it is. */
export function withEvent(run: Rec, event: RunEvent): Rec {
  if (event.type === 'log') {
    const lines = (run.logLines ?? []) as Rec[];
    if (event.index !== lines.length) return run;
    const line = { text: event.text, invocation: event.invocation, ...(event.step !== undefined && { step: event.step }) };
    return { ...run, logLines: [...lines, line], logs: [...((run.logs ?? []) as string[]), event.text] };
  }
  if (event.type === 'steps') {
    // The stream's steps carry no results: the ones the record has are kept.
    const known = new Map(((run.steps ?? []) as Rec[]).map((step) => [step.name, step]));
    return { ...run, steps: event.steps.map((step) => ({ ...known.get(step.name), ...step })) };
  }
  return run;
}
