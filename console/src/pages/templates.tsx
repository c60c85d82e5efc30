// Templates: create from a repository commit, build with live logs, publish with pricing; the caller's
// installations with links to their pages. Each template has its own page (#/templates/<id>).
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Busy, Field, Loaded, type Rec, Table, text, usePolling, useAction, useLoad } from '../ui';
import { money } from '../money';
import { Time } from '../time';

function CreateTemplate({ onCreated }: { onCreated(id: string): void }) {
  const [form, setForm] = useState({ name: '', description: '', repository: '', templatePath: '.', gitHash: '', version: '1.0.0', category: '' });
  const { run, status } = useAction();
  const set = (key: keyof typeof form) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const create = async (event: Event) => {
    event.preventDefault();
    const created: Rec | undefined = await run('Creating the template', () =>
      unwrap(
        api().POST('/api/sdk/v1/templates', {
          body: Object.fromEntries(Object.entries(form).filter(([, value]) => value)) as never,
        }),
      ),
    );
    if (created) onCreated(created.id);
  };
  return (
    <form class="card" onSubmit={create} aria-label="Create a template">
      <h2>New template</h2>
      <div class="row">
        <Field label="Name">
          <input required value={form.name} onInput={set('name')} />
        </Field>
        <Field label="Version">
          <input required value={form.version} onInput={set('version')} />
        </Field>
        <Field label="Category">
          <input value={form.category} onInput={set('category')} />
        </Field>
      </div>
      <Field label="Description">
        <input value={form.description} onInput={set('description')} />
      </Field>
      <div class="row">
        <Field label="Repository (git URL)">
          <input required value={form.repository} onInput={set('repository')} />
        </Field>
        <Field label="Path in the repository">
          <input required value={form.templatePath} onInput={set('templatePath')} />
        </Field>
        <Field label="Commit (gitHash)">
          <input required value={form.gitHash} onInput={set('gitHash')} />
        </Field>
      </div>
      <button type="submit">Create template</button>
      {status}
    </form>
  );
}

function BuildLogs({ templateId, buildId, onEnd }: { templateId: string; buildId: string; onEnd(): void }) {
  const [build, setBuild] = useState<Rec>();
  usePolling(
    async () => {
      const found: Rec = await unwrap(
        api().GET('/api/sdk/v1/templates/{templateId}/builds/{buildId}', { params: { path: { templateId, buildId }, query: { wait: 2 } as never } }),
      );
      setBuild(found);
      const ended = found.buildStatus !== 'building';
      if (ended) onEnd();
      return ended;
    },
    500,
    [buildId],
  );
  return (
    <div>
      {(!build || build.buildStatus === 'building') && <Busy label="Building" />}
      {build && build.buildStatus !== 'building' && (
        <p role="status">
          Build {build.buildStatus}
          {build.cdnUrl && (
            <>
              {' '}
              ·{' '}
              <a href={build.cdnUrl} target="_blank" rel="noreferrer">
                preview
              </a>
            </>
          )}
        </p>
      )}
      <pre class="logs" role="log" aria-label="Build logs" aria-live="polite">
        {((build?.logs ?? []) as string[]).join('\n') || '(waiting for the first log line)'}
      </pre>
    </div>
  );
}

function TemplateDetail({ templateId }: { templateId: string }) {
  const template = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/templates/{templateId}', { params: { path: { templateId } } })), [templateId]);
  const [buildId, setBuildId] = useState<string>();
  const [pricing, setPricing] = useState({ setupFee: '0', monthlyFee: '0', perUse: '0', scripts: '0', resources: '0' });
  const price = (key: keyof typeof pricing) => (event: { currentTarget: { value: string } }) => setPricing({ ...pricing, [key]: event.currentTarget.value });
  const { run, status } = useAction();
  const build = async () => {
    const before = template.data?.buildId;
    let answered = false;
    // The build answers when it ends (or at its wait bound); its id shows on the template as soon as it starts, so
    // the logs follow it meanwhile. A build quicker than one look still shows its logs from the answer.
    const started = run('Building', () =>
      unwrap(api().POST('/api/sdk/v1/templates/{templateId}/build', { params: { path: { templateId } }, body: {} as never })),
    ).finally(() => {
      answered = true;
    });
    while (!answered) {
      const current: Rec = await unwrap(api().GET('/api/sdk/v1/templates/{templateId}', { params: { path: { templateId } } }));
      if (current.buildId && current.buildId !== before) {
        setBuildId(current.buildId);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const answer: Rec | undefined = await started;
    if (answer?.buildId) setBuildId(answer.buildId);
    template.reload();
  };
  const publish = async (event: Event) => {
    event.preventDefault();
    await run('Publishing', () =>
      unwrap(
        api().POST('/api/sdk/v1/templates/{templateId}/publish', {
          params: { path: { templateId } },
          body: {
            pricing: {
              setupFee: Number(pricing.setupFee),
              monthlyFee: Number(pricing.monthlyFee),
              estimatedUsageCost: {
                perUse: Number(pricing.perUse),
                perMonth: Number(pricing.scripts) + Number(pricing.resources),
                breakdown: { scripts: Number(pricing.scripts), resources: Number(pricing.resources) },
              },
            },
          } as never,
        }),
      ),
    );
    template.reload();
  };
  return (
    <Loaded state={template} label="the template">
      {(data) => (
        <section aria-label={`Template ${data.name}`}>
          <h2>
            {data.name} <span class="badge">{data.status}</span> <span class="badge">v{data.version}</span>
          </h2>
          <p>{data.description}</p>
          <dl>
            <dt>Source</dt>
            <dd>
              {data.repository} @ {data.gitHash} ({data.templatePath})
            </dd>
            <dt>Category</dt>
            <dd>
              {text(data.category)}
              {(data.tags ?? []).length > 0 && ` · tags ${data.tags.join(', ')}`}
            </dd>
            <dt>Last build</dt>
            <dd>
              {text(data.buildStatus)}
              {data.cdnUrl && (
                <>
                  {' '}
                  · <a href={data.cdnUrl}>preview</a>
                </>
              )}
            </dd>
            <dt>Customization</dt>
            <dd>{(data.customization ?? []).map((field: Rec) => `${field.label ?? field.key} (${field.key}, ${field.type})`).join('; ') || '–'}</dd>
            <dt>Needs</dt>
            <dd>
              scripts {(data.dependencies?.scripts ?? []).join(', ') || 'none'}; resources {(data.dependencies?.resources ?? []).join(', ') || 'none'}
            </dd>
          </dl>
          <button type="button" onClick={build}>
            Build v{data.version}
          </button>
          {buildId && <BuildLogs key={buildId} templateId={templateId} buildId={buildId} onEnd={template.reload} />}
          {data.status === 'draft' && (
            <form class="row" onSubmit={publish} aria-label="Publish the template">
              <Field label="Setup fee (USD)">
                <input type="number" min="0" step="0.01" value={pricing.setupFee} onInput={price('setupFee')} />
              </Field>
              <Field label="Monthly fee (USD)">
                <input type="number" min="0" step="0.01" value={pricing.monthlyFee} onInput={price('monthlyFee')} />
              </Field>
              <Field label="Estimated usage cost per use (USD)">
                <input type="number" min="0" step="0.001" value={pricing.perUse} onInput={price('perUse')} />
              </Field>
              <Field label="Estimated monthly cost of its scripts (USD)">
                <input type="number" min="0" step="0.01" value={pricing.scripts} onInput={price('scripts')} />
              </Field>
              <Field label="Estimated monthly cost of its resources (USD)">
                <input type="number" min="0" step="0.01" value={pricing.resources} onInput={price('resources')} />
              </Field>
              <button type="submit">Publish</button>
            </form>
          )}
          {status}
        </section>
      )}
    </Loaded>
  );
}

export function TemplatesPage({ param }: { param?: string }) {
  const templates = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/templates', { params: { query: { limit: 100 } as never } })), [param]);
  const installations = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/templates/installations', { params: { query: { limit: 100 } as never } })),
    [param],
  );
  if (param)
    return (
      <>
        <TemplateDetail key={param} templateId={param} />
        <a href="#/templates">All templates</a>
      </>
    );
  return (
    <>
      <CreateTemplate
        onCreated={(id) => {
          location.hash = `#/templates/${encodeURIComponent(id)}`;
        }}
      />
      <Loaded state={templates} label="your templates">
        {(data) => (
          <Table
            caption="Your templates"
            rows={(data.templates ?? []) as Rec[]}
            columns={[
              ['Name', (item) => <a href={`#/templates/${encodeURIComponent(item.id)}`}>{item.name}</a>],
              ['Status', (item) => <span class="badge">{item.status}</span>],
              ['Version', (item) => item.version],
              ['Installs', (item) => item.installCount],
              ['Created', (item) => <Time value={item.createdAt} />],
            ]}
          />
        )}
      </Loaded>
      <Loaded state={installations} label="your installations">
        {(data) => (
          <Table
            caption="Your template installations"
            rows={(data.installations ?? []) as Rec[]}
            columns={[
              ['Template', (item) => item.templateName ?? item.templateId],
              ['Version', (item) => text(item.version)],
              ['Status', (item) => text(item.status ?? item.buildStatus)],
              [
                'Page',
                (item) =>
                  item.pageUrl && (
                    <a href={item.pageUrl} target="_blank" rel="noreferrer">
                      {item.pageUrl}
                    </a>
                  ),
              ],
              ['Monthly', (item) => money(item.monthlyFee)],
              ['Installed', (item) => <Time value={item.installedAt} />],
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
