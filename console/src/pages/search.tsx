// Search: the caller's scripts, flows and own resources whose name holds the words, and a run by its id.
import { api, unwrap } from '../api';
import { useFlows, useScripts } from '../pickers';
import { Loaded, type Rec, RunLink, useLoad } from '../ui';

const matches = (name: unknown, words: string) => typeof name === 'string' && name.toLowerCase().includes(words.toLowerCase());

function Group({ title, items }: { title: string; items: { href: string; name: string }[] }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {items.length === 0 ? (
        <p class="empty">None.</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li>
              <a href={item.href}>{item.name}</a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function SearchPage({ param = '' }: { param?: string }) {
  const words = param.trim();
  const scripts = useScripts();
  const flows = useFlows();
  const resources = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/resources', { params: { query: { limit: 100 } as never } })), []);
  // Any word could be a run's id: the API answers NOT_FOUND for one that is not the caller's.
  const run = useLoad(
    async (): Promise<Rec | undefined> =>
      /^[\w-]{8,}$/.test(words)
        ? unwrap(api().GET('/api/sdk/v1/executions/{executionId}', { params: { path: { executionId: words } } })).catch(() => undefined)
        : undefined,
    [words],
  );
  if (!words) return <p class="empty">Type in the search box above (press / to reach it).</p>;
  return (
    <>
      <p>
        Results for <strong>{words}</strong>
      </p>
      <Loaded state={run} label="runs">
        {(found) =>
          found ? (
            <section aria-label="Run">
              <h2>Run</h2>
              <p>
                <RunLink executionId={words} /> <span class={`badge status-${found.status}`}>{found.status}</span>
              </p>
            </section>
          ) : null
        }
      </Loaded>
      <Group
        title="Scripts"
        items={(scripts.data ?? [])
          .filter((item) => matches(item.name, words))
          .map((item) => ({ href: `#/scripts/${encodeURIComponent(item.id)}`, name: item.name }))}
      />
      <Group
        title="Flows"
        items={(flows.data ?? [])
          .filter((item) => matches(item.name, words))
          .map((item) => ({ href: `#/flows/${encodeURIComponent(item.id)}`, name: item.name }))}
      />
      <Group
        title="Resources"
        items={((resources.data?.resources ?? []) as Rec[])
          .filter((item) => matches(item.name, words))
          .map((item) => ({ href: `#/marketplace/resources/${encodeURIComponent(item.id)}`, name: item.name }))}
      />
    </>
  );
}
