// My scripts: create in a code editor with lint, read each version's code and edit it into the next one, versions
// with deploy and rollback, run with input, event subscriptions, webhooks and schedules.
import { useState } from 'preact/hooks';
import { scriptStateLabel, versionLabel } from '../../../clients/typescript/src/index';
import { api, unwrap } from '../api';
import { CodeEditor } from '../editor';
import { JsonTree } from '../json-tree';
import { NameChecklist, useInstalledResources } from '../pickers';
import { BulkReplay } from '../replay';
import { ErrorMessage, Field, Loaded, type Rec, RunLink, Table, parseJson, text, useAction, useLoad } from '../ui';
import { money } from '../money';
import { Time, when } from '../time';

const starter = {
  nodejs18: 'export async function handler(event, context) {\n  return { success: true, got: event.data };\n}\n',
  'python3.11': 'def handler(event, context):\n    return {"success": True, "got": event["data"]}\n',
} as Record<string, string>;

function CreateScript({ onCreated }: { onCreated(id: string): void }) {
  const [form, setForm] = useState({ name: '', description: '', runtime: 'nodejs18', timeout: '30' });
  const [allowedResources, setAllowedResources] = useState<string[]>([]);
  const installed = useInstalledResources();
  const [code, setCode] = useState(starter.nodejs18!);
  const { run, status } = useAction();
  const set = (key: keyof typeof form) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const create = async (event: Event) => {
    event.preventDefault();
    const created = await run('Creating the script', () =>
      unwrap(
        api().POST('/api/sdk/v1/scripts/createScript', {
          body: {
            name: form.name,
            ...(form.description && { description: form.description }),
            runtime: form.runtime as never,
            code,
            config: { timeout: Number(form.timeout), allowedResources },
          } as never,
        }),
      ),
    );
    if (created) onCreated(created.id);
  };
  return (
    <form class="card" onSubmit={create} aria-label="Create a script">
      <h2>New script</h2>
      <div class="row">
        <Field label="Name">
          <input name="name" required value={form.name} onInput={set('name')} />
        </Field>
        <Field label="Runtime">
          <select
            name="runtime"
            value={form.runtime}
            onChange={(event) => {
              set('runtime')(event);
              setCode(starter[event.currentTarget.value]!);
            }}
          >
            <option>nodejs18</option>
            <option>python3.11</option>
          </select>
        </Field>
        <Field label="Timeout (s)">
          <input type="number" min="1" max="300" value={form.timeout} onInput={set('timeout')} />
        </Field>
      </div>
      <NameChecklist
        legend="Allowed resources (installed)"
        items={installed}
        chosen={allowedResources}
        onChange={setAllowedResources}
        empty="None installed: install resources in the marketplace first."
      />
      <Field label="Description">
        <input value={form.description} onInput={set('description')} />
      </Field>
      <CodeEditor key={form.runtime} value={code} runtime={form.runtime} label="Script code" onChange={setCode} />
      <button type="submit">Create script</button>
      {status}
    </form>
  );
}

function Versions({ script, onChanged }: { script: Rec; onChanged(): void }) {
  const versions = useLoad((): Promise<Rec> => unwrap(api().POST('/api/sdk/v1/scripts/listVersions', { body: { scriptId: script.id } })), [script.id]);
  const { run, status } = useAction();
  const deploy = async (version: number, semver: string) => {
    if (
      await run(`Deploying ${versionLabel(version, semver)}`, () =>
        unwrap(api().POST('/api/sdk/v1/scripts/deployScript', { body: { scriptId: script.id, version } as never })),
      )
    )
      onChanged();
    versions.reload();
  };
  return (
    <section aria-label="Versions">
      <h3>Versions</h3>
      {status}
      <Loaded state={versions} label="versions">
        {(data) => (
          <Table
            caption="Versions, newest first"
            rows={(data.versions ?? []) as Rec[]}
            columns={[
              ['Version', (version) => versionLabel(version.version, version.semver)],
              ['Message', (version) => text(version.commitMessage)],
              ['Created', (version) => <Time value={version.createdAt} />],
              ['Active', (version) => (version.isActive ? <span class="badge">deployed</span> : '')],
              [
                '',
                (version) =>
                  !version.isActive && (
                    <button type="button" onClick={() => deploy(version.version, version.semver)}>
                      {data.versions.some((other: Rec) => other.isActive && other.version > version.version) ? 'Roll back to' : 'Deploy'}{' '}
                      {versionLabel(version.version, version.semver)}
                    </button>
                  ),
              ],
            ]}
          />
        )}
      </Loaded>
    </section>
  );
}

function Run({ script, onChanged }: { script: Rec; onChanged(): void }) {
  const [input, setInput] = useState('{}');
  const [result, setResult] = useState<Rec>();
  const { run, status } = useAction();
  const execute = async (event: Event) => {
    event.preventDefault();
    const answer = await run('Running', () =>
      unwrap(api().POST('/api/sdk/v1/scripts/executeScript', { body: { scriptId: script.id, data: parseJson('Input', input) as never } })),
    );
    setResult(answer);
    if (answer) onChanged();
  };
  return (
    <form class="card" onSubmit={execute} aria-label="Run the script">
      <h3>Run</h3>
      <Field label="Input data (JSON)">
        <textarea name="input" value={input} onInput={(event) => setInput(event.currentTarget.value)} />
      </Field>
      <button type="submit">Run now</button>
      {status}
      {result && (
        <div role="status">
          <p>
            Run <RunLink executionId={result.executionId} />: {result.status}
            {result.duration !== undefined && ` in ${result.duration} ms`}
          </p>
          <JsonTree value={result.output ?? result.error} label="Output" />
        </div>
      )}
    </form>
  );
}

const seconds = (value: unknown) => (typeof value === 'number' ? `${value} s` : '–');
/** How each setting reads; settings not named here show as they are. */
const settings: [string, string, (value: Rec[string]) => string][] = [
  ['durable', 'Durable', (value) => (value ? 'yes: steps checkpoint, waits hold no worker' : 'no')],
  ['timeout', 'Timeout', seconds],
  ['memory', 'Memory', (value) => (typeof value === 'number' ? `${value} MB` : '–')],
  ['concurrency', 'Concurrency', (value) => (value ? `${value.limit} at once per ${value.key} (${value.scope ?? 'user'})` : 'the platform’s limit per script')],
  ['maxExecutionsPerDay', 'Runs per day at most', (value) => text(value)],
  ['maxCostPerExecution', 'Cost per run at most', money],
  ['allowedResources', 'Allowed resources', (value) => (Array.isArray(value) && value.length ? value.join(', ') : 'none')],
];

/** The script's configuration: the SDK's record of a script carries only its timeout and memory. */
function ScriptSettings({ script }: { script: Rec }) {
  const loaded = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/scripts/{scriptId}', { params: { path: { scriptId: script.id } } })), [script.id]);
  const config = (loaded.data?.config ?? {}) as Rec;
  const named = new Set(settings.map(([key]) => key));
  const others = Object.entries(config).filter(([key]) => !named.has(key));
  return (
    <section aria-label="Configuration">
      <h3>Configuration</h3>
      <ErrorMessage error={loaded.error} />
      <dl>
        {settings.map(([key, label, show]) => (
          <>
            <dt>{label}</dt>
            <dd>{key === 'durable' || key === 'concurrency' || key in config ? show(config[key]) : '–'}</dd>
          </>
        ))}
        {others.map(([key, value]) => (
          <>
            <dt>{key}</dt>
            <dd>{text(value)}</dd>
          </>
        ))}
      </dl>
    </section>
  );
}

function RecentRuns({ script }: { script: Rec }) {
  const runs = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/executions', { params: { query: { scriptId: script.id, limit: 10 } as never } })),
    [script.id, script.totalExecutions],
  );
  return (
    <section aria-label="Recent runs">
      <h3>Recent runs</h3>
      <Loaded state={runs} label="recent runs">
        {(data) => (
          <Table
            caption="The script's last 10 runs"
            rows={(data.executions ?? []) as Rec[]}
            empty="No runs yet."
            columns={[
              ['Run', (item) => <RunLink executionId={item.executionId} />],
              ['Status', (item) => <span class={`badge status-${item.status}`}>{item.status}</span>],
              ['Trigger', (item) => item.trigger],
              ['Started', (item) => <Time value={item.startedAt} />],
              ['Reason', (item) => (item.error ? `${item.error.code}: ${item.error.message}` : '')],
            ]}
          />
        )}
      </Loaded>
      <a href={`#/runs?scriptId=${encodeURIComponent(script.id)}`}>All runs of this script</a>
    </section>
  );
}

function Triggers({ script }: { script: Rec }) {
  const subscriptions = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/scripts/{scriptId}/subscriptions', { params: { path: { scriptId: script.id } } })),
    [script.id],
  );
  const [subscription, setSubscription] = useState({ eventType: 'chatapp.message', conditions: '[]' });
  const [webhookName, setWebhookName] = useState('');
  const [schedule, setSchedule] = useState({ name: '', cronExpression: '0 * * * *' });
  const [created, setCreated] = useState<string[]>([]);
  const { run, status } = useAction();
  const subscribe = async (event: Event) => {
    event.preventDefault();
    await run('Subscribing', () =>
      unwrap(
        api().POST('/api/sdk/v1/scripts/{scriptId}/subscriptions', {
          params: { path: { scriptId: script.id } },
          body: { eventType: subscription.eventType, conditions: parseJson('Conditions', subscription.conditions) ?? [] } as never,
        }),
      ),
    );
    subscriptions.reload();
  };
  const remove = async (subscriptionId: string) => {
    await run('Deleting the subscription', () =>
      unwrap(api().DELETE('/api/sdk/v1/scripts/{scriptId}/subscriptions/{subscriptionId}', { params: { path: { scriptId: script.id, subscriptionId } } })),
    );
    subscriptions.reload();
  };
  const webhook = async (event: Event) => {
    event.preventDefault();
    const answer = await run('Creating the webhook', () =>
      unwrap(api().POST('/api/sdk/v1/scripts/createWebhook', { body: { scriptId: script.id, name: webhookName } as never })),
    );
    if (answer) setCreated([...created, `Webhook ${answer.name}: POST ${answer.webhookUrl} signed with secret ${answer.webhookSecret} (shown once)`]);
  };
  const scheduleRun = async (event: Event) => {
    event.preventDefault();
    const answer: Rec | undefined = await run('Creating the schedule', () =>
      unwrap(api().POST('/api/sdk/v1/scripts/createSchedule', { body: { scriptId: script.id, ...schedule } as never })),
    );
    if (answer)
      setCreated([...created, `Schedule ${schedule.name}: ${schedule.cronExpression} (UTC)${answer.nextRunAt ? `, next run ${when(answer.nextRunAt)}` : ''}`]);
  };
  return (
    <section aria-label="Triggers">
      <h3>Event subscriptions</h3>
      <Loaded state={subscriptions} label="subscriptions">
        {(data) => (
          <Table
            caption="Subscriptions"
            rows={(data.subscriptions ?? []) as Rec[]}
            columns={[
              ['Event type', (item) => item.eventType],
              ['Conditions', (item) => text(item.conditions)],
              ['Enabled', (item) => (item.enabled ? 'yes' : 'no')],
              [
                '',
                (item) => (
                  <button type="button" class="secondary" onClick={() => remove(item.subscriptionId)}>
                    Delete
                  </button>
                ),
              ],
            ]}
          />
        )}
      </Loaded>
      <form class="row" onSubmit={subscribe} aria-label="Subscribe to an event type">
        <Field label="Event type">
          <input value={subscription.eventType} required onInput={(event) => setSubscription({ ...subscription, eventType: event.currentTarget.value })} />
        </Field>
        <Field label="Conditions (JSON list of {field, operator, value})">
          <input value={subscription.conditions} onInput={(event) => setSubscription({ ...subscription, conditions: event.currentTarget.value })} />
        </Field>
        <button type="submit">Subscribe</button>
      </form>
      <h3>Webhooks and schedules</h3>
      <form class="row" onSubmit={webhook} aria-label="Create a webhook">
        <Field label="Webhook name">
          <input value={webhookName} required onInput={(event) => setWebhookName(event.currentTarget.value)} />
        </Field>
        <button type="submit">Create webhook</button>
      </form>
      <form class="row" onSubmit={scheduleRun} aria-label="Create a schedule">
        <Field label="Schedule name">
          <input value={schedule.name} required onInput={(event) => setSchedule({ ...schedule, name: event.currentTarget.value })} />
        </Field>
        <Field label="Cron (5 fields, UTC)">
          <input value={schedule.cronExpression} required onInput={(event) => setSchedule({ ...schedule, cronExpression: event.currentTarget.value })} />
        </Field>
        <button type="submit">Create schedule</button>
      </form>
      {status}
      {created.length > 0 && (
        <ul role="status">
          {created.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A stored version's code, read-only (only the owner may read it); "Edit" starts the next version from it. */
function StoredCode({ script, saved, onEdit }: { script: Rec; saved: number; onEdit(code: string): void }) {
  const versions = useLoad((): Promise<Rec> => unwrap(api().POST('/api/sdk/v1/scripts/listVersions', { body: { scriptId: script.id } })), [script.id, saved]);
  const [chosen, setChosen] = useState<number>();
  const list = (versions.data?.versions ?? []) as Rec[];
  const version: number | undefined = chosen ?? script.activeVersion ?? list[0]?.version;
  const code = useLoad(
    async (): Promise<Rec | undefined> =>
      version === undefined
        ? undefined
        : unwrap(
            api().GET('/api/sdk/v1/scripts/{scriptId}/versions/{version}/code', {
              params: { path: { scriptId: script.id, version: String(version) } },
            }),
          ),
    [script.id, version],
  );
  return (
    <section aria-label="Code">
      <h3>Code</h3>
      <div class="row">
        <Field label="Version shown">
          <select value={version === undefined ? '' : String(version)} onChange={(event) => setChosen(Number(event.currentTarget.value))}>
            {list.map((item) => (
              <option value={String(item.version)}>v{item.version}</option>
            ))}
          </select>
        </Field>
        <button type="button" class="secondary" disabled={!code.data} onClick={() => code.data && onEdit(code.data.code)}>
          Edit as the next version
        </button>
      </div>
      {!code.error && <ErrorMessage error={versions.error} />}
      <Loaded state={code} label="the code">
        {(data) =>
          data && (
            <>
              <p>
                Version {data.version} ({data.semver}) · saved {when(data.createdAt)}
                {data.dependencies && <> · packages {text(data.dependencies.declared)}</>}
              </p>
              <CodeEditor key={`${data.versionId}`} value={data.code} runtime={data.runtime} label={`Code of version ${data.version}`} readOnly />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

function ScriptDetail({ scriptId }: { scriptId: string }) {
  const script = useLoad((): Promise<Rec> => unwrap(api().POST('/api/sdk/v1/scripts/getScript', { body: { scriptId } })), [scriptId]);
  const [draft, setDraft] = useState<{ code: string; started: number }>();
  const [message, setMessage] = useState('');
  const [saved, setSaved] = useState(0);
  const { run, status } = useAction();
  const save = async (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    const version = await run('Saving a new version', () =>
      unwrap(api().POST('/api/sdk/v1/scripts/createVersion', { body: { scriptId, code: draft.code, ...(message && { commitMessage: message }) } })),
    );
    if (version) {
      setDraft(undefined);
      setMessage('');
      setSaved(saved + 1);
      script.reload();
    }
  };
  return (
    <Loaded state={script} label="the script">
      {(data) => (
        <>
          <section aria-label={`Script ${data.name}`}>
            <h2>
              {data.name} <span class="badge">{data.runtime}</span> <span class="badge">{scriptStateLabel(data as never)}</span>
            </h2>
            <p>{data.description}</p>
            <p>
              {data.totalExecutions} run{data.totalExecutions === 1 ? '' : 's'} · {money(data.totalCost)} · average {Math.round(data.avgDuration ?? 0)} ms
            </p>
            <ScriptSettings script={data} />
            <StoredCode script={data} saved={saved} onEdit={(code) => setDraft({ code, started: (draft?.started ?? 0) + 1 })} />
            {draft && (
              <form onSubmit={save} aria-label="Edit the code">
                <h3>Next version</h3>
                <CodeEditor
                  key={draft.started}
                  value={draft.code}
                  runtime={data.runtime}
                  label="Script code"
                  onChange={(code) => setDraft({ ...draft, code })}
                />
                <div class="row">
                  <Field label="Change message">
                    <input value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
                  </Field>
                  <button type="submit">Save as new version</button>
                  <button type="button" class="secondary" onClick={() => setDraft(undefined)}>
                    Cancel
                  </button>
                </div>
                {status}
              </form>
            )}
          </section>
          <Run script={data} onChanged={script.reload} />
          <RecentRuns script={data} />
          <Versions key={saved} script={data} onChanged={script.reload} />
          <Triggers script={data} />
          <BulkReplay scriptId={data.id} />
          <a href="#/scripts">All scripts</a>
        </>
      )}
    </Loaded>
  );
}

export function ScriptsPage({ param }: { param?: string }) {
  const scripts = useLoad((): Promise<Rec> => unwrap(api().POST('/api/sdk/v1/scripts/listScripts', { body: {} as never })), [param]);
  const open = (id?: string) => {
    location.hash = id ? `#/scripts/${id}` : '#/scripts';
  };
  if (param === 'new') return <CreateScript onCreated={open} />;
  if (param) return <ScriptDetail key={param} scriptId={param} />;
  return (
    <>
      <a href="#/scripts/new" class="button">
        Create a script
      </a>
      <Loaded state={scripts} label="your scripts">
        {(data) => (
          <Table
            caption="Your scripts"
            rows={(data.scripts ?? []) as Rec[]}
            columns={[
              ['Name', (item) => <a href={`#/scripts/${encodeURIComponent(item.id)}`}>{item.name}</a>],
              ['Status', (item) => scriptStateLabel(item as never)],
              ['Runs', (item) => item.totalExecutions],
              ['Created', (item) => <Time value={item.createdAt} />],
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
