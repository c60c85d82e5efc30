// Marketplace: published resources, scripts and templates with filters, sort orders and paging; a detail with
// pricing, rating and reviews; install (credentials for resources, the customization form for templates). Also
// "My resources": create, publish, and the caller's installations. Each tab and each item has its own URL
// (#/marketplace/<tab>, #/marketplace/<kind>/<id>).
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { ChoiceField, Field, Loaded, Pager, type Rec, Table, rating, parseJson, text, useAction, useLoad } from '../ui';
import { money } from '../money';
import { Time } from '../time';
import { CustomizationForm } from './customization';

type Kind = 'resources' | 'scripts' | 'templates';
const limit = 10;

interface Filters {
  search: string;
  category: string;
  tags: string;
  sortBy: string;
  sortOrder: string;
  pricingModel: string;
  minRating: string;
}
const noFilters: Filters = { search: '', category: '', tags: '', sortBy: 'rating', sortOrder: 'desc', pricingModel: '', minRating: '' };

async function listing(kind: Kind, filters: Filters, offset: number): Promise<{ items: Rec[]; total?: number }> {
  const tags = filters.tags
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  const common = { ...(filters.search && { search: filters.search }), ...(filters.category && { category: filters.category as never }), limit, offset };
  if (kind === 'scripts') {
    const data: Rec = await unwrap(
      api().POST('/api/sdk/v1/scripts/listMarketplaceScripts', {
        body: {
          ...common,
          ...(tags.length && { tags }),
          sortBy: filters.sortBy as never,
          sortOrder: filters.sortOrder as never,
          ...(filters.pricingModel && { pricingModel: filters.pricingModel as never }),
          ...(filters.minRating && { minRating: Number(filters.minRating) }),
        },
      }),
    );
    return { items: data.scripts ?? [], total: data.total ?? data.count };
  }
  const query = { ...common, ...(tags.length && { tags: tags.join(',') }) };
  const data: Rec =
    kind === 'resources'
      ? await unwrap(api().GET('/api/sdk/v1/resources/marketplace', { params: { query: query as never } }))
      : await unwrap(api().GET('/api/sdk/v1/templates/marketplace', { params: { query: query as never } }));
  return { items: data[kind] ?? data.items ?? [], total: data.total };
}

function pricingOf(item: Rec) {
  const pricing = item.pricing ?? {};
  if ('setupFee' in pricing || 'monthlyFee' in pricing) return `setup ${money(pricing.setupFee)}, ${money(pricing.monthlyFee)}/month`;
  return `${pricing.model ?? 'free'}${pricing.basePrice !== undefined ? ` ${money(pricing.basePrice)}` : ''}${pricing.monthlyPrice ? `, ${money(pricing.monthlyPrice)}/month` : ''}`;
}

function Reviews({ kind, id }: { kind: Kind; id: string }) {
  const reviews = useLoad(async (): Promise<Rec> => {
    const path = { params: { path: kind === 'resources' ? { resourceId: id } : kind === 'scripts' ? { scriptId: id } : { templateId: id } } } as never;
    if (kind === 'resources') return unwrap(api().GET('/api/sdk/v1/resources/{resourceId}/reviews', path));
    if (kind === 'scripts') return unwrap(api().GET('/api/sdk/v1/scripts/{scriptId}/reviews', path));
    return unwrap(api().GET('/api/sdk/v1/templates/{templateId}/reviews', path));
  }, [kind, id]);
  return (
    <Loaded state={reviews} label="reviews">
      {(data) => (
        <Table
          caption="Reviews"
          rows={(data.reviews ?? []) as Rec[]}
          empty="No reviews yet."
          columns={[
            ['Rating', (review) => `${review.rating} / 5`],
            ['Comment', (review) => review.comment ?? review.text ?? ''],
            ['When', (review) => <Time value={review.createdAt} />],
          ]}
        />
      )}
    </Loaded>
  );
}

const credentialFields: Record<string, string[]> = {
  api_key: ['apiKey'],
  bearer: ['token'],
  basic: ['username', 'password'],
  oauth2: ['clientId', 'clientSecret'],
};

function Authenticate({ resourceId, initialType }: { resourceId: string; initialType: string }) {
  const [type, setType] = useState(initialType in credentialFields ? initialType : 'api_key');
  const [values, setValues] = useState<Record<string, string>>({});
  const { run, status } = useAction();
  const [done, setDone] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const answer: Rec | undefined = await run('Storing the credentials', () =>
      unwrap(
        api().POST('/api/sdk/v1/resources/{resourceId}/authenticate', {
          params: { path: { resourceId } },
          body: { type, credentials: values } as never,
        }),
      ),
    );
    if (answer) setDone(answer.authorizationUrl ? `Continue at ${answer.authorizationUrl}` : 'Credentials stored: the installation is authenticated.');
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Authenticate the installation">
      <h3>Authenticate</h3>
      <Field label="Credential type">
        <select
          value={type}
          onChange={(event) => {
            setType(event.currentTarget.value);
            setValues({});
          }}
        >
          {Object.keys(credentialFields).map((name) => (
            <option value={name}>{name}</option>
          ))}
        </select>
      </Field>
      {credentialFields[type]!.map((name) => (
        <Field label={name}>
          <input
            type={(/secret|password|key|token/i.test(name) ? 'password' : 'text') as 'text'}
            value={values[name] ?? ''}
            required
            onInput={(event) => setValues({ ...values, [name]: event.currentTarget.value })}
          />
        </Field>
      ))}
      <button type="submit">Save credentials</button>
      {status}
      {done && <p role="status">{done}</p>}
    </form>
  );
}

function Install({ kind, item }: { kind: Kind; item: Rec }) {
  const { run, status } = useAction();
  const [installed, setInstalled] = useState<Rec>();
  // The full record: a template's customization fields, a resource's authentication.
  const record = useLoad(async (): Promise<Rec | undefined> => {
    if (kind === 'templates') return unwrap(api().GET('/api/sdk/v1/templates/{templateId}', { params: { path: { templateId: item.id } } }));
    if (kind === 'resources') return unwrap(api().GET('/api/sdk/v1/resources/{resourceId}', { params: { path: { resourceId: item.id } } }));
    return undefined;
  }, [kind, item.id]);
  const authentication = String(record.data?.endpoint?.authentication ?? 'none');
  const install = async (customization?: Record<string, unknown>) => {
    const answer: Rec | undefined = await run('Installing', (): Promise<Rec> => {
      if (kind === 'resources') return unwrap(api().POST('/api/sdk/v1/resources/{resourceId}/install', { params: { path: { resourceId: item.id } } }));
      if (kind === 'scripts') return unwrap(api().POST('/api/sdk/v1/scripts/{scriptId}/install', { params: { path: { scriptId: item.id } } }));
      return unwrap(api().POST('/api/sdk/v1/templates/{templateId}/install', { params: { path: { templateId: item.id } }, body: { customization } as never }));
    });
    if (answer) setInstalled(answer);
  };
  return (
    <div>
      {kind === 'templates' ? (
        <Loaded state={record} label="the template's fields">
          {(template) => <CustomizationForm fields={(template?.customization ?? []) as Rec[]} submitLabel="Install" onSubmit={install} />}
        </Loaded>
      ) : (
        <button type="button" onClick={() => install()}>
          Install
        </button>
      )}
      {status}
      {installed && (
        <div role="status">
          <p>
            Installed{installed.installationId ? ` (installation ${installed.installationId})` : ''}.{' '}
            {installed.pageUrl && (
              <a href={installed.pageUrl} target="_blank" rel="noreferrer">
                Open the page
              </a>
            )}
          </p>
          {kind === 'resources' &&
            (authentication === 'none' ? <p>This resource needs no credentials.</p> : <Authenticate resourceId={item.id} initialType={authentication} />)}
        </div>
      )}
    </div>
  );
}

/** The full record behind a marketplace item (a URL names only its kind and id). */
function record(kind: Kind, id: string): Promise<Rec> {
  if (kind === 'resources') return unwrap(api().GET('/api/sdk/v1/resources/{resourceId}', { params: { path: { resourceId: id } } }));
  if (kind === 'scripts') return unwrap(api().GET('/api/sdk/v1/scripts/{scriptId}', { params: { path: { scriptId: id } } }));
  return unwrap(api().GET('/api/sdk/v1/templates/{templateId}', { params: { path: { templateId: id } } }));
}

function Detail({ kind, id }: { kind: Kind; id: string }) {
  const found = useLoad(() => record(kind, id), [kind, id]);
  return (
    <Loaded state={found} label="the item">
      {(item) => (
        <section aria-label={`${item.name} details`}>
          <h2>
            {item.name} {item.status && <span class="badge">{item.status}</span>}
          </h2>
          <p>{item.description}</p>
          <dl>
            <dt>Pricing</dt>
            <dd>{pricingOf(item)}</dd>
            <dt>Rating</dt>
            <dd>{rating(item.rating, item.reviewCount)}</dd>
            <dt>Installs</dt>
            <dd>{item.installCount ?? 0}</dd>
            <dt>Category</dt>
            <dd>{text(item.category)}</dd>
            {kind === 'scripts' && (
              <>
                <dt>Runtime</dt>
                <dd>{item.runtime}</dd>
              </>
            )}
            {kind === 'resources' && (
              <>
                <dt>Endpoint</dt>
                <dd>
                  {text(item.endpoint?.baseUrl)} · authentication {text(item.endpoint?.authentication)}
                </dd>
              </>
            )}
            {kind === 'templates' && (
              <>
                <dt>Source</dt>
                <dd>
                  {item.repository} @ {item.gitHash}
                </dd>
              </>
            )}
          </dl>
          {kind === 'resources' && (
            <Table
              caption="Methods"
              rows={(item.endpoint?.methods ?? []) as Rec[]}
              empty="No methods."
              columns={[
                ['Name', (method) => method.name],
                ['HTTP', (method) => `${method.httpMethod ?? 'GET'} ${method.path ?? ''}`],
                ['Description', (method) => text(method.description)],
              ]}
            />
          )}
          <Install kind={kind} item={item} />
          <Reviews kind={kind} id={item.id} />
          <a href={`#/marketplace/${kind}`}>Back to the list</a>
        </section>
      )}
    </Loaded>
  );
}

function Browse({ kind }: { kind: Kind }) {
  const [draft, setDraft] = useState(noFilters);
  const [filters, setFilters] = useState(noFilters);
  const [offset, setOffset] = useState(0);
  const page = useLoad(() => listing(kind, filters, offset), [kind, filters, offset]);
  const set = (key: keyof Filters) => (event: { currentTarget: { value: string } }) => setDraft({ ...draft, [key]: event.currentTarget.value });
  return (
    <>
      <form
        class="card row"
        aria-label={`Filter ${kind}`}
        onSubmit={(event) => {
          event.preventDefault();
          setOffset(0);
          setFilters(draft);
        }}
      >
        <Field label="Search">
          <input type="search" value={draft.search} onInput={set('search')} />
        </Field>
        {kind === 'scripts' ? (
          <ChoiceField
            label="Category"
            value={draft.category}
            choices={['notification', 'data_sync', 'automation', 'utility', 'reporting']}
            any
            onChange={set('category')}
          />
        ) : (
          <Field label="Category">
            <input value={draft.category} onInput={set('category')} />
          </Field>
        )}
        <Field label="Tags (comma separated)">
          <input value={draft.tags} onInput={set('tags')} />
        </Field>
        {kind === 'scripts' && (
          <>
            <ChoiceField
              label="Sort by"
              value={draft.sortBy}
              choices={['rating', 'installCount', 'trendingScore', 'publishedAt', 'name']}
              onChange={set('sortBy')}
            />
            <ChoiceField label="Order" value={draft.sortOrder} choices={['desc', 'asc']} onChange={set('sortOrder')} />
            <ChoiceField
              label="Pricing"
              value={draft.pricingModel}
              choices={['free', 'pay-per-execution', 'subscription']}
              any
              onChange={set('pricingModel')}
            />
            <Field label="Minimum rating">
              <input type="number" min="0" max="5" step="0.5" value={draft.minRating} onInput={set('minRating')} />
            </Field>
          </>
        )}
        <button type="submit">Apply</button>
      </form>
      <Loaded state={page} label={kind}>
        {(data) => (
          <>
            <Table
              caption={`Published ${kind}`}
              rows={data.items}
              columns={[
                ['Name', (item) => <a href={`#/marketplace/${kind}/${encodeURIComponent(item.id)}`}>{item.name}</a>],
                ['Description', (item) => item.description],
                ['Pricing', pricingOf],
                ['Rating', (item) => rating(item.rating, item.reviewCount)],
                ['Installs', (item) => text(item.installCount)],
              ]}
            />
            <Pager offset={offset} limit={limit} total={data.total} onPage={setOffset} />
          </>
        )}
      </Loaded>
    </>
  );
}

const exampleMethods = JSON.stringify(
  [{ name: 'getForecast', httpMethod: 'GET', path: '/forecast/{city}', parameters: { city: { type: 'string', required: true } } }],
  null,
  2,
);
const exampleSpec = JSON.stringify(
  {
    openapi: '3.0.3',
    info: { title: 'Weather', version: '1.0.0' },
    paths: {
      '/forecast/{city}': {
        get: { parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'the forecast' } } },
      },
    },
  },
  null,
  2,
);

function MyResources() {
  const mine = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/resources', { params: { query: { limit: 50 } as never } })), []);
  const installations = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/resources/installations', { params: { query: { limit: 50 } as never } })),
    [],
  );
  const [form, setForm] = useState({
    name: '',
    description: '',
    resourceType: 'api',
    category: '',
    baseUrl: '',
    authentication: 'none',
    price: '0',
    methods: exampleMethods,
    spec: exampleSpec,
  });
  const { run, status } = useAction();
  const set = (key: keyof typeof form) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const create = async (event: Event) => {
    event.preventDefault();
    await run('Creating the resource', () =>
      unwrap(
        api().POST('/api/sdk/v1/resources', {
          body: {
            name: form.name,
            description: form.description,
            resourceType: form.resourceType,
            ...(form.category && { category: form.category }),
            openApiSpec: parseJson('OpenAPI document', form.spec),
            endpoint: { baseUrl: form.baseUrl, authentication: form.authentication, methods: parseJson('Methods', form.methods) },
            pricing: { model: Number(form.price) > 0 ? 'pay-per-call' : 'free', basePrice: Number(form.price), currency: 'USDC' },
          } as never,
        }),
      ),
    );
    mine.reload();
  };
  const publish = async (resourceId: string) => {
    await run('Publishing', () => unwrap(api().POST('/api/sdk/v1/resources/{resourceId}/publish', { params: { path: { resourceId } } })));
    mine.reload();
  };
  return (
    <>
      <form class="card" onSubmit={create} aria-label="Create a resource">
        <h2>Create a resource</h2>
        <div class="row">
          <Field label="Name">
            <input name="name" required value={form.name} onInput={set('name')} />
          </Field>
          <Field label="Type">
            <select value={form.resourceType} onChange={set('resourceType')}>
              {['api', 'llm', 'script', 'integration'].map((name) => (
                <option>{name}</option>
              ))}
            </select>
          </Field>
          <Field label="Category">
            <input value={form.category} onInput={set('category')} />
          </Field>
          <Field label="Price per call (USDC)">
            <input type="number" min="0" step="0.001" value={form.price} onInput={set('price')} />
          </Field>
        </div>
        <Field label="Description">
          <input name="description" required value={form.description} onInput={set('description')} />
        </Field>
        <div class="row">
          <Field label="Base URL">
            <input name="baseUrl" type="url" required value={form.baseUrl} onInput={set('baseUrl')} />
          </Field>
          <ChoiceField
            label="Authentication"
            value={form.authentication}
            choices={['none', 'api_key', 'bearer', 'basic', 'oauth2']}
            onChange={set('authentication')}
          />
        </div>
        <Field label="Methods (JSON)">
          <textarea name="methods" value={form.methods} onInput={set('methods')} />
        </Field>
        <Field label="OpenAPI 3.0 document (JSON)">
          <textarea name="openApiSpec" value={form.spec} onInput={set('spec')} />
        </Field>
        <button type="submit">Create</button>
        {status}
      </form>
      <Loaded state={mine} label="your resources">
        {(data) => (
          <Table
            caption="Your resources"
            rows={(data.resources ?? []) as Rec[]}
            columns={[
              ['Name', (item) => <a href={`#/marketplace/resources/${encodeURIComponent(item.id)}`}>{item.name}</a>],
              ['Status', (item) => <span class="badge">{item.status}</span>],
              ['Created', (item) => <Time value={item.createdAt} />],
              [
                '',
                (item) =>
                  item.status === 'draft' && (
                    <button type="button" onClick={() => publish(item.id)}>
                      Publish {item.name}
                    </button>
                  ),
              ],
            ]}
          />
        )}
      </Loaded>
      <Loaded state={installations} label="your installations">
        {(data) => (
          <Table
            caption="Your installations"
            rows={(data.installations ?? []) as Rec[]}
            columns={[
              ['Resource', (item) => item.resourceName ?? item.resourceId],
              ['Authenticated', (item) => (item.isAuthenticated ? 'yes' : 'no')],
              ['Status', (item) => item.status],
              ['Last used', (item) => <Time value={item.lastUsedAt} />],
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

const tabs = [
  ['resources', 'Resources'],
  ['scripts', 'Scripts'],
  ['templates', 'Templates'],
  ['mine', 'My resources'],
] as const;

export function MarketplacePage({ param }: { param?: string }) {
  const [section, id] = (param ?? '').split('/');
  const tab = tabs.find(([name]) => name === section)?.[0] ?? 'resources';
  if (id && tab !== 'mine') return <Detail key={param} kind={tab} id={id} />;
  return (
    <>
      <div class="tabs" role="tablist" aria-label="Marketplace sections">
        {tabs.map(([name, label]) => (
          <button
            type="button"
            role="tab"
            aria-selected={tab === name}
            onClick={() => {
              location.hash = `#/marketplace/${name}`;
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel">{tab === 'mine' ? <MyResources /> : <Browse key={tab} kind={tab} />}</div>
    </>
  );
}
