// Connect an agent: the MCP server's URL with client configurations to copy, the tools an agent connected with the
// signed-in key sees (tools/list over POST /mcp, every page), and the recent runs tool calls started (trigger mcp).
import { api, storedKey, unwrap } from '../api';
import { Loaded, type Rec, Table, useLoad } from '../ui';
import { Time } from '../time';

const mcpUrl = () => `${location.origin}/mcp`;

/** One JSON-RPC request to the stateless server: no session to open first. */
async function mcpRequest(method: string, params: Record<string, unknown>): Promise<Rec> {
  const response = await fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${storedKey() ?? ''}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await response.json()) as Rec;
  if (answer.error) throw new Error(`${answer.error.message} (${answer.error.code})`);
  return answer.result as Rec;
}

async function allTools(): Promise<Rec[]> {
  const tools: Rec[] = [];
  let cursor: string | undefined;
  do {
    const page = await mcpRequest('tools/list', cursor ? { cursor } : {});
    tools.push(...(page.tools as Rec[]));
    cursor = page.nextCursor as string | undefined;
  } while (cursor);
  return tools;
}

/** mcp-remote reads the key from the environment: `${API_KEY}` is its placeholder, not this page's. */
const keyPlaceholder = ['Authorization:Bearer $', '{API_KEY}'].join('');
const clientConfig = () =>
  JSON.stringify(
    {
      mcpServers: {
        automations: {
          command: 'npx',
          args: ['-y', 'mcp-remote', mcpUrl(), '--header', keyPlaceholder],
          env: { API_KEY: '<your API key>' },
        },
      },
    },
    null,
    2,
  );

export function AgentsPage() {
  const tools = useLoad(allTools);
  const calls = useLoad(() => unwrap(api().GET('/api/sdk/v1/executions', { params: { query: { trigger: 'mcp', limit: 20 } as never } })));
  return (
    <>
      <section aria-label="MCP server">
        <h2>MCP server</h2>
        <p>
          Agents connect to <code>{mcpUrl()}</code> with <code>Authorization: Bearer &lt;API key&gt;</code>. A key with fewer scopes shows fewer tools.
        </p>
        <details>
          <summary>Claude Desktop or Cursor configuration</summary>
          <pre>{clientConfig()}</pre>
        </details>
      </section>
      <section aria-label="Tools">
        <h2>Tools your agent will see</h2>
        <Loaded state={tools} label="the tools">
          {(list) => (
            <Table
              caption={`${list.length} tools`}
              rows={list}
              empty="No tools yet: install a resource or deploy a script."
              columns={[
                ['Name', (tool) => <code>{tool.name}</code>],
                ['Title', (tool) => tool.title ?? ''],
                ['Reads only', (tool) => (tool.annotations?.readOnlyHint ? 'yes' : 'no')],
                ['Description', (tool) => tool.description ?? ''],
              ]}
            />
          )}
        </Loaded>
      </section>
      <section aria-label="Recent tool calls">
        <h2>Recent tool calls</h2>
        <Loaded state={calls} label="recent tool calls">
          {(data) => (
            <Table
              caption="Runs started by MCP tool calls"
              rows={(data.executions ?? []) as Rec[]}
              empty="No tool call has run a script yet."
              columns={[
                ['Run', (run) => <a href={`#/runs/${encodeURIComponent(run.executionId)}`}>{run.executionId}</a>],
                ['Client', (run) => run.source ?? ''],
                ['Status', (run) => run.status],
                ['Started', (run) => <Time value={run.startedAt} />],
              ]}
            />
          )}
        </Loaded>
      </section>
    </>
  );
}
