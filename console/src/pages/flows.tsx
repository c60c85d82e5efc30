// Flows: create time flows (cron) and event flows (condition tree), pause, resume, run now, and their results; each
// flow has its own page (#/flows/<id>) with what it does and the warnings the API gave it.
import { useState } from 'preact/hooks';
import { namedEventTypes } from '../../../functions/platform/event-type-names';
import { api, unwrap } from '../api';
import { NamePicker, nameOf, useScripts } from '../pickers';
import { ChoiceField, Field, Loaded, type Rec, RunLink, Table, text, useAction, useLoad } from '../ui';
import { money } from '../money';
import { Time, when } from '../time';
import { ConditionGroup, type ConditionNode, newLeaf } from './conditions';

function CreateFlow({ onCreated }: { onCreated(id: string): void }) {
  const scripts = useScripts();
  const [kind, setKind] = useState<'time' | 'event'>('time');
  const [form, setForm] = useState({
    title: '',
    description: '',
    schedule: '0 9 * * *',
    scriptId: '',
    eventType: 'chatapp.message',
    executionType: 'direct',
    prompt: '',
  });
  const [tree, setTree] = useState<ConditionNode>({ operator: 'AND', conditions: [newLeaf()] });
  const { run, status } = useAction();
  const set = (key: keyof typeof form) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const create = async (event: Event) => {
    event.preventDefault();
    const created: Rec | undefined = await run('Creating the flow', () =>
      kind === 'time'
        ? unwrap(
            api().POST('/api/sdk/v1/flows/createTimeFlow', {
              body: { title: form.title, description: form.description, schedule: form.schedule, scriptId: form.scriptId } as never,
            }),
          )
        : unwrap(
            api().POST('/api/sdk/v1/flows/createEventFlow', {
              body: {
                title: form.title,
                description: form.description,
                eventType: form.eventType,
                conditions: tree,
                executionType: form.executionType,
                prompt: form.prompt || form.description,
                ...(form.scriptId && { scriptId: form.scriptId }),
              } as never,
            }),
          ),
    );
    if (created) onCreated(created.id);
  };
  return (
    <form class="card" onSubmit={create} aria-label="Create a flow">
      <h2>New flow</h2>
      <fieldset class="row">
        <legend>Trigger</legend>
        <label>
          <input type="radio" name="kind" checked={kind === 'time'} onChange={() => setKind('time')} /> Time (cron)
        </label>
        <label>
          <input type="radio" name="kind" checked={kind === 'event'} onChange={() => setKind('event')} /> Event
        </label>
      </fieldset>
      <div class="row">
        <Field label="Title">
          <input name="title" required maxLength={200} value={form.title} onInput={set('title')} />
        </Field>
        <NamePicker
          label="Script"
          hint="The script a time flow or a direct event flow runs"
          items={scripts}
          value={form.scriptId}
          empty="choose a script…"
          required={kind === 'time' || form.executionType === 'direct'}
          onChange={(scriptId) => setForm({ ...form, scriptId })}
        />
      </div>
      <Field label="Description">
        <input name="description" required maxLength={1000} value={form.description} onInput={set('description')} />
      </Field>
      {kind === 'time' ? (
        <Field label="Schedule (5-field cron, UTC)">
          <input name="schedule" required value={form.schedule} onInput={set('schedule')} />
        </Field>
      ) : (
        <>
          <div class="row">
            <ChoiceField label="Event type" value={form.eventType} choices={namedEventTypes} onChange={set('eventType')} />
            <Field label="Execution">
              <select value={form.executionType} onChange={set('executionType')}>
                <option value="direct">direct (run the script)</option>
                <option value="llm">llm (prompt)</option>
              </select>
            </Field>
          </div>
          {form.executionType === 'llm' && (
            <Field label="Prompt">
              <textarea value={form.prompt} onInput={set('prompt')} />
            </Field>
          )}
          <ConditionGroup node={tree} onChange={setTree} />
        </>
      )}
      <button type="submit">Create flow</button>
      {status}
    </form>
  );
}

function FlowDetail({ flowId }: { flowId: string }) {
  const flow = useLoad((): Promise<Rec> => unwrap(api().POST('/api/sdk/v1/flows/getFlow', { body: { assignmentId: flowId } as never })), [flowId]);
  const scripts = useScripts();
  const { run, status } = useAction();
  const act = async (label: string, path: '/api/sdk/v1/flows/pauseFlow' | '/api/sdk/v1/flows/resumeFlow' | '/api/sdk/v1/flows/runFlow') => {
    await run(label, () => unwrap(api().POST(path, { body: { assignmentId: flowId } as never })));
    flow.reload();
  };
  const remove = async () => {
    if (await run('Deleting', () => unwrap(api().POST('/api/sdk/v1/flows/deleteFlow', { body: { assignmentId: flowId } as never })))) location.hash = '#/flows';
  };
  return (
    <Loaded state={flow} label="the flow">
      {(data) => {
        const record = (data.flow ?? data) as Rec;
        const warnings = (data.warnings ?? record.warnings ?? []) as string[];
        const trigger = (record.trigger ?? {}) as Rec;
        return (
          <section aria-label={`Flow ${record.title}`}>
            <h2>
              {record.title} <span class="badge">{record.status}</span>
            </h2>
            <p>{record.description}</p>
            {warnings.length > 0 && (
              <ul class="warnings" aria-label="Warnings">
                {warnings.map((warning) => (
                  <li>{warning}</li>
                ))}
              </ul>
            )}
            <dl>
              <dt>Trigger</dt>
              <dd>{trigger.type === 'time' ? `time, cron ${trigger.config?.cronExpression} (UTC)` : `event ${text(trigger.config?.eventType)}`}</dd>
              {trigger.type === 'event' && (
                <>
                  <dt>Conditions</dt>
                  <dd>
                    <pre role="document" aria-label="Conditions">
                      {JSON.stringify(trigger.config?.rootCondition ?? trigger.config?.conditions, null, 2)}
                    </pre>
                  </dd>
                </>
              )}
              <dt>Execution</dt>
              <dd>{text(record.executionType)}</dd>
              <dt>Script</dt>
              <dd>{record.scriptId ? <a href={`#/scripts/${encodeURIComponent(record.scriptId)}`}>{nameOf(scripts.data, record.scriptId)}</a> : '–'}</dd>
              {record.prompt && (
                <>
                  <dt>Prompt</dt>
                  <dd>
                    <pre role="document" aria-label="Prompt">
                      {record.prompt}
                    </pre>
                  </dd>
                </>
              )}
              {(record.recommendedTools ?? []).length > 0 && (
                <>
                  <dt>Recommended tools</dt>
                  <dd>{record.recommendedTools.join(', ')}</dd>
                </>
              )}
              <dt>Runs</dt>
              <dd>
                {record.executionCount ?? 0}, last {when(record.lastExecutedAt)}
              </dd>
              <dt>Created</dt>
              <dd>
                <Time value={record.createdAt} />
              </dd>
            </dl>
            <div class="row">
              {record.status === 'active' && (
                <button type="button" onClick={() => act('Pausing', '/api/sdk/v1/flows/pauseFlow')}>
                  Pause
                </button>
              )}
              {record.status === 'paused' && (
                <button type="button" onClick={() => act('Resuming', '/api/sdk/v1/flows/resumeFlow')}>
                  Resume
                </button>
              )}
              <button type="button" onClick={() => act('Running the flow', '/api/sdk/v1/flows/runFlow')}>
                Run now
              </button>
              <button type="button" class="secondary" onClick={remove}>
                Delete
              </button>
            </div>
            {status}
            <Table
              caption="Results, newest first"
              rows={[...((record.executionResults ?? []) as Rec[])].reverse()}
              empty="No runs yet."
              columns={[
                ['When', (result) => <Time value={result.timestamp} />],
                ['Status', (result) => <span class="badge">{result.status}</span>],
                ['Duration', (result) => `${result.duration} ms`],
                ['Cost', (result) => money(result.cost)],
                ['Result', (result) => text(result.error ?? result.result)],
                ['Run', (result) => (result.executionId ? <RunLink executionId={result.executionId} /> : '–')],
              ]}
            />
            <a href="#/flows">All flows</a>
          </section>
        );
      }}
    </Loaded>
  );
}

export function FlowsPage({ param }: { param?: string }) {
  const flows = useLoad((): Promise<Rec> => unwrap(api().POST('/api/sdk/v1/flows/searchFlows', { body: { detail: 'summary', limit: 100 } as never })), [param]);
  if (param) return <FlowDetail key={param} flowId={param} />;
  return (
    <>
      <CreateFlow
        onCreated={(id) => {
          location.hash = `#/flows/${encodeURIComponent(id)}`;
        }}
      />
      <Loaded state={flows} label="flows">
        {(data) => (
          <Table
            caption="Your flows"
            rows={((data as Rec).flows ?? data) as Rec[]}
            columns={[
              ['Title', (item) => <a href={`#/flows/${encodeURIComponent(item.id)}`}>{item.title}</a>],
              ['Status', (item) => <span class="badge">{item.status}</span>],
              ['Trigger', (item) => item.triggerType],
              ['Schedule', (item) => text(item.cronExpression)],
              ['Runs', (item) => text(item.executionCount)],
              ['Last run', (item) => <Time value={item.lastExecutedAt} />],
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
