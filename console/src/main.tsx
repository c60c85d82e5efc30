// The console: sign-in with an API key (locally the dev account's, without a form), then a home dashboard and one page per area, chosen by the URL's hash (#/scripts, #/runs/...);
// every object has a URL of its own (#/scripts/<id>, #/flows/<id>, #/documents/<id>, #/marketplace/resources/<id>...).
// The one page without sign-in is an approval's signed link (#/approve/<approvalId>?token=...): its token is the key.
// An MCP client's authorization lands on #/authorize?requestId=... (the consent page), after sign-in, outside the navigation.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { devApiKey, signIn, signOut, storedKey } from './api';
import { usePendingApprovals } from './approvals';
import { AgentsPage } from './pages/agents';
import { ApprovalsPage } from './pages/approvals';
import { ApprovePage } from './pages/approve';
import { goKeys, listenForKeys } from './keys';
import { AuthorizePage } from './pages/authorize';
import { DocumentsPage } from './pages/documents';
import { FlowsPage } from './pages/flows';
import { HomePage } from './pages/home';
import { MarketplacePage } from './pages/marketplace';
import { RunsPage } from './pages/runs';
import { ScriptsPage } from './pages/scripts';
import { SearchPage } from './pages/search';
import { TemplatesPage } from './pages/templates';
import { UsagePage } from './pages/usage';
import { Field, useAction } from './ui';
import './style.css';

const pages = {
  home: ['Home', HomePage],
  marketplace: ['Marketplace', MarketplacePage],
  scripts: ['My scripts', ScriptsPage],
  runs: ['Runs', RunsPage],
  approvals: ['Approvals', ApprovalsPage],
  flows: ['Flows', FlowsPage],
  documents: ['Documents', DocumentsPage],
  usage: ['Usage and revenue', UsagePage],
  templates: ['Templates', TemplatesPage],
  agents: ['Connect an agent', AgentsPage],
} as const;
/** Pages reached by a link rather than the navigation. */
const hidden = { search: ['Search', SearchPage] } as const;
type PageName = keyof typeof pages | keyof typeof hidden;

/** `#/<page>/<param>?<query>`: the param names what the page shows (an id, or `<kind>/<id>` in the marketplace). */
const route = (): { page: PageName | 'approve' | 'authorize'; param?: string; query: URLSearchParams } => {
  const [path = '', search] = location.hash.replace(/^#\/?/, '').split('?', 2);
  const [name, ...rest] = path.split('/');
  const param = rest.filter(Boolean).map(decodeURIComponent).join('/');
  const page =
    name === 'approve' || name === 'authorize' || (name && (name in pages || name in hidden)) ? (name as PageName | 'approve' | 'authorize') : 'home';
  return { page, param: param || undefined, query: new URLSearchParams(search) };
};

function SignIn({ onSignedIn }: { onSignedIn(user: string): void }) {
  const [key, setKey] = useState('');
  const { run, status } = useAction();
  useEffect(() => {
    // Locally the dev account signs in by itself; a key it no longer takes is left in the form to change.
    void devApiKey().then(async (found) => {
      if (!found) return;
      setKey((typed) => typed || found);
      const me = await signIn(found).catch(() => undefined);
      if (me) onSignedIn(me.username ?? me.userId);
    });
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const me = await run('Signing in', () => signIn(key.trim()));
    if (me) onSignedIn(me.username ?? me.userId);
  };
  return (
    <main class="signin">
      <h1>Automation platform</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="API key" hint="Kept in this tab's session storage only.">
          <input type="password" name="apiKey" autocomplete="off" required value={key} onInput={(event) => setKey(event.currentTarget.value)} />
        </Field>
        <button type="submit">Sign in</button>
        {status}
      </form>
    </main>
  );
}

/** The navigation; the approvals entry counts the runs waiting for the user's decision. */
function Navigation({ current }: { current: string }) {
  const pending = usePendingApprovals([current]);
  const count = pending.data?.count as number | undefined;
  return (
    <nav aria-label="Console">
      {Object.entries(pages).map(([name, [label]]) => (
        <a href={`#/${name}`} aria-current={name === current ? 'page' : undefined}>
          {label}
          {name === 'approvals' && count ? (
            <span class="count">
              {count}
              <span class="visually-hidden"> pending</span>
            </span>
          ) : null}
        </a>
      ))}
    </nav>
  );
}

function Search({ current }: { current?: string }) {
  const [words, setWords] = useState(current ?? '');
  return (
    // biome-ignore lint/a11y/useSemanticElements: a form in the search landmark; preact's types have no <search>
    <form
      role="search"
      class="search"
      onSubmit={(event) => {
        event.preventDefault();
        location.hash = `#/search/${encodeURIComponent(words.trim())}`;
      }}
    >
      <input
        name="search"
        type="search"
        aria-label="Search scripts, flows, resources, or a run by id"
        placeholder="Search ( / )"
        value={words}
        onInput={(event) => setWords(event.currentTarget.value)}
      />
    </form>
  );
}

function KeyHelp({ onClose }: { onClose(): void }) {
  return (
    <aside class="keys" aria-label="Keyboard shortcuts">
      <h2>Keyboard shortcuts</h2>
      <dl>
        <dt>/</dt>
        <dd>search</dd>
        {Object.entries(goKeys).map(([key, page]) => (
          <>
            <dt>g {key}</dt>
            <dd>{page}</dd>
          </>
        ))}
        <dt>?</dt>
        <dd>show or hide this list</dd>
      </dl>
      <button type="button" class="secondary" onClick={onClose}>
        Close
      </button>
    </aside>
  );
}

function App() {
  const [user, setUser] = useState<string | undefined>();
  const [checking, setChecking] = useState(Boolean(storedKey()));
  const [where, setWhere] = useState(route);
  const [help, setHelp] = useState(false);
  useEffect(() => listenForKeys(() => setHelp((shown) => !shown)), []);
  useEffect(() => {
    const follow = () => setWhere(route());
    addEventListener('hashchange', follow);
    const key = storedKey();
    if (key)
      signIn(key)
        .then(
          (me) => setUser(me.username ?? me.userId),
          () => signOut(),
        )
        .finally(() => setChecking(false));
    return () => removeEventListener('hashchange', follow);
  }, []);
  if (where.page === 'approve') return <ApprovePage approvalId={where.param ?? ''} token={where.query.get('token') ?? ''} />;
  if (checking) return <p role="status">Signing in…</p>;
  if (!user) return <SignIn onSignedIn={setUser} />;
  if (where.page === 'authorize')
    return (
      <main id="content">
        <h1>Connect an MCP client</h1>
        <AuthorizePage requestId={where.query.get('requestId') ?? ''} />
      </main>
    );
  const [title, Page] = where.page in hidden ? hidden[where.page as keyof typeof hidden] : pages[where.page as keyof typeof pages];
  return (
    <>
      <header>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <strong>Automation platform</strong>
        <Navigation current={where.page} />
        <Search key={where.page === 'search' ? where.param : undefined} current={where.page === 'search' ? where.param : undefined} />
        <span class="user">Signed in as {user}</span>
        <button
          type="button"
          onClick={() => {
            signOut();
            setUser(undefined);
          }}
        >
          Sign out
        </button>
      </header>
      {help && <KeyHelp onClose={() => setHelp(false)} />}
      <main id="content" tabIndex={-1}>
        <h1>{title}</h1>
        <Page param={where.param} />
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
// The static "Loading" line goes: render adds to a container, it does not replace what the HTML put there.
root.replaceChildren();
render(<App />, root);
