// Runs: the execution history across scripts and flows with filters; one run's logs, output, cost and duration,
// followed live (polling) while it is running.
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { NamePicker, nameOf, useFlows, useScripts } from '../pickers';
import { Busy, ErrorMessage, Field, Loaded, Pager, type Rec, Table, money, usePolling, useLoad, when } from '../ui';

const limit = 20;
interface Filters {
  status: string;
  trigger: string;
  scriptId: string;
  flowId: string;
  startDate: string;
  endDate: string;
}
const none: Filters = { status: '', trigger: '', scriptId: '', flowId: '', startDate: '', endDate: '' };

function RunDetail({ executionId }: { executionId: string }) {
  const [run, setRun] = useState<Rec>();
  const [error, setError] = useState<unknown>();
  usePolling(
    async () => {
      try {
        const found: Rec = await unwrap(api().POST('/api/sdk/v1/scripts/getExecution', { body: { executionId } }));
        setRun(found);
        return found.status !== 'running';
      } catch (failure) {
        setError(failure);
        return true;
      }
    },
    1000,
    [executionId],
  );
  const summary = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/executions', { params: { query: { limit: 100 } as never } })),
    [executionId, run?.status],
  );
  const listed = (summary.data?.executions as Rec[] | undefined)?.find((item) => item.executionId === executionId);
  const scripts = useScripts();
  return (
    <section aria-label={`Run ${executionId}`}>
      <h2>
        Run {executionId}
        {run && <> of {nameOf(scripts.data, run.scriptId)}</>}
      </h2>
      <ErrorMessage error={error} />
      {!run && !error && <Busy label="Loading the run" />}
      {run && (
        <>
          <dl>
            <dt>Status</dt>
            <dd>
              <span class="badge">{run.status}</span>
              {run.status === 'running' && <Busy label="Following its logs" />}
            </dd>
            <dt>Script</dt>
            <dd>
              <a href={`#/scripts/${encodeURIComponent(run.scriptId)}`}>{nameOf(scripts.data, run.scriptId)}</a>
            </dd>
            <dt>Duration</dt>
            <dd>{run.duration} ms</dd>
            <dt>Cost</dt>
            <dd>{money(listed?.cost)}</dd>
            <dt>Started</dt>
            <dd>{when(run.createdAt)}</dd>
          </dl>
          <h3>Logs</h3>
          <pre class="logs" role="log" aria-label="Logs" aria-live="polite">
            {(run.logs as string[]).join('\n') || '(no log lines)'}
          </pre>
          <h3>Output</h3>
          <pre role="document" aria-label="Output">
            {JSON.stringify(run.error ?? run.output, null, 2)}
          </pre>
        </>
      )}
      <a href="#/runs">All runs</a>
    </section>
  );
}

export function RunsPage({ param }: { param?: string }) {
  const [draft, setDraft] = useState(none);
  const [filters, setFilters] = useState(none);
  const [offset, setOffset] = useState(0);
  const scripts = useScripts();
  const flows = useFlows();
  const runs = useLoad(
    (): Promise<Rec> =>
      unwrap(
        api().GET('/api/sdk/v1/executions', {
          params: { query: { ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value)), limit, offset } as never },
        }),
      ),
    [filters, offset, param],
  );
  if (param) return <RunDetail executionId={param} />;
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
        <Field label="Status">
          <select value={draft.status} onChange={set('status')}>
            <option value="">any</option>
            <option>running</option>
            <option>success</option>
            <option>failed</option>
          </select>
        </Field>
        <Field label="Trigger">
          <select value={draft.trigger} onChange={set('trigger')}>
            <option value="">any</option>
            {['manual', 'event', 'schedule', 'webhook', 'flow'].map((name) => (
              <option>{name}</option>
            ))}
          </select>
        </Field>
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
                [
                  'Run',
                  (item) => (item.kind === 'script' ? <a href={`#/runs/${encodeURIComponent(item.executionId)}`}>{item.executionId}</a> : item.executionId),
                ],
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
                ['Status', (item) => <span class="badge">{item.status}</span>],
                ['Trigger', (item) => item.trigger],
                ['Started', (item) => when(item.startedAt)],
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
