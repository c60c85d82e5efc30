// Bulk replay from a script's page: re-runs its past runs that match a status and a time range, with the
// input each was given. The API replays at most 100 runs per call, so the form says so and shows how many it took.
import { useState } from 'preact/hooks';
import { api, unwrap } from './api';
import { ChoiceField, Field, type Rec, RunLink, useAction } from './ui';

export const replayLimit = 100;
const replayableStatuses = ['failed', 'success', 'cancelled'] as const;
type ReplayStatus = (typeof replayableStatuses)[number];

/** A `datetime-local` value (the browser's zone) as the instant the API compares with. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function BulkReplay({ scriptId }: { scriptId: string }) {
  const [filters, setFilters] = useState<{ status: ReplayStatus | ''; from: string; to: string }>({ status: 'failed', from: '', to: '' });
  const [replayed, setReplayed] = useState<string[]>();
  const { run, status } = useAction();
  const set = (key: keyof typeof filters) => (event: { currentTarget: { value: string } }) => setFilters({ ...filters, [key]: event.currentTarget.value });
  const replay = async (event: Event) => {
    event.preventDefault();
    setReplayed(undefined);
    const answer: Rec | undefined = await run('Replaying', () =>
      unwrap(
        api().POST('/api/sdk/v1/executions/replay', {
          body: {
            scriptId,
            ...(filters.status && { status: filters.status }),
            ...(filters.from && { from: instant(filters.from) }),
            ...(filters.to && { to: instant(filters.to) }),
          },
        }),
      ),
    );
    if (answer) setReplayed(answer.executionIds as string[]);
  };
  return (
    <form class="card" aria-label="Replay runs" onSubmit={replay}>
      <h3>Replay runs</h3>
      <p>Runs the past runs that match again, each with the input it was given. At most {replayLimit} runs per replay: narrow the time range to replay more.</p>
      <div class="row">
        <ChoiceField label="Status of the runs" value={filters.status} choices={replayableStatuses} any onChange={set('status')} />
        <Field label="Started from">
          <input type="datetime-local" value={filters.from} onInput={set('from')} />
        </Field>
        <Field label="Started until">
          <input type="datetime-local" value={filters.to} onInput={set('to')} />
        </Field>
        <button type="submit">Replay</button>
      </div>
      {status}
      {replayed && (
        <div role="status" aria-label="Replayed runs">
          <p>
            {replayed.length === 0
              ? 'No run matched: nothing replayed.'
              : `Replayed ${replayed.length} run${replayed.length === 1 ? '' : 's'}${replayed.length === replayLimit ? ` (the most one replay takes; older matches may remain)` : ''}.`}
          </p>
          <ul>
            {replayed.map((executionId) => (
              <li>
                <RunLink executionId={executionId} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
