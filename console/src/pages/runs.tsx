// Runs: the execution history across scripts and flows with filters; one run's page is ./run.tsx.
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { NamePicker, nameOf, useFlows, useScripts } from '../pickers';
import { ChoiceField, Field, Loaded, Pager, type Rec, RunLink, Table, useLoad } from '../ui';
import { money } from '../money';
import { Time } from '../time';
import { RunDetail } from './run';

const limit = 20;
/** The SDK's status words: every state a run can be in. */
const runStatuses = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'timeout'];
interface Filters {
  kind: string;
  status: string;
  trigger: string;
  scriptId: string;
  flowId: string;
  startDate: string;
  endDate: string;
}
const none: Filters = { kind: '', status: '', trigger: '', scriptId: '', flowId: '', startDate: '', endDate: '' };

/** Filters a link sets (`#/runs?status=failed`, from the home page and a script's page). */
const linked = (): Filters => {
  const query = new URLSearchParams(location.hash.split('?')[1]);
  return Object.fromEntries(Object.entries(none).map(([key]) => [key, query.get(key) ?? ''])) as unknown as Filters;
};

export function RunsPage({ param }: { param?: string }) {
  const [draft, setDraft] = useState(linked);
  const [filters, setFilters] = useState(linked);
  const [offset, setOffset] = useState(0);
  const scripts = useScripts();
  const flows = useFlows();
  const runs = useLoad(
    (): Promise<Rec> =>
      unwrap(
        api().GET('/api/sdk/v1/executions', {
          params: {
            query: {
              ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value)),
              // A flow's trigger is one row, its script run a child on the flow run's page; a script's runs include them.
              ...(!filters.scriptId && { topLevel: 'true' }),
              limit,
              offset,
            } as never,
          },
        }),
      ),
    [filters, offset, param],
  );
  if (param) return <RunDetail key={param} executionId={param} />;
  const set = (key: keyof Filters) => (event: { currentTarget: { value: string } }) => setDraft({ ...draft, [key]: event.currentTarget.value });
  return (
    <>
      <form
        class="card row"
        aria-label="Filter runs"
        onSubmit={(event) => {
          event.preventDefault();
          setOffset(0);
          setFilters(draft);
        }}
      >
        <ChoiceField label="Status" value={draft.status} choices={runStatuses} any onChange={set('status')} />
        <ChoiceField label="Kind" value={draft.kind} choices={['script', 'flow']} any onChange={set('kind')} />
        <ChoiceField label="Trigger" value={draft.trigger} choices={['manual', 'event', 'schedule', 'webhook', 'flow']} any onChange={set('trigger')} />
        <NamePicker label="Script" items={scripts} value={draft.scriptId} empty="any" onChange={(scriptId) => setDraft({ ...draft, scriptId })} />
        <NamePicker label="Flow" items={flows} value={draft.flowId} empty="any" onChange={(flowId) => setDraft({ ...draft, flowId })} />
        <Field label="From">
          <input type="date" value={draft.startDate} onInput={set('startDate')} />
        </Field>
        <Field label="To">
          <input type="date" value={draft.endDate} onInput={set('endDate')} />
        </Field>
        <button type="submit">Apply</button>
      </form>
      <Loaded state={runs} label="runs">
        {(data) => (
          <>
            <Table
              caption="Runs, newest first"
              rows={(data.executions ?? []) as Rec[]}
              columns={[
                ['Run', (item) => <RunLink executionId={item.executionId} />],
                ['Kind', (item) => item.kind],
                [
                  'Of',
                  (item) =>
                    item.flowId ? (
                      <a href={`#/flows/${encodeURIComponent(item.flowId)}`}>{nameOf(flows.data, item.flowId)}</a>
                    ) : item.scriptId ? (
                      <a href={`#/scripts/${encodeURIComponent(item.scriptId)}`}>{nameOf(scripts.data, item.scriptId)}</a>
                    ) : (
                      '–'
                    ),
                ],
                ['Status', (item) => <span class={`badge status-${item.status}`}>{item.status}</span>],
                ['Trigger', (item) => item.trigger],
                ['Started', (item) => <Time value={item.startedAt} />],
                ['Duration', (item) => `${item.duration} ms`],
                ['Cost', (item) => money(item.cost)],
                ['Error', (item) => (item.error ? `${item.error.code}: ${item.error.message}` : '')],
              ]}
            />
            <Pager offset={offset} limit={limit} total={data.total} onPage={setOffset} />
          </>
        )}
      </Loaded>
    </>
  );
}
