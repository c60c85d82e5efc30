// `platform mcp tools|call`: the caller's MCP server as an agent sees it, through the MCP SDK's own client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Command } from 'commander';
import { type GlobalOptions, UsageError, exitCodes, optionsOf, output, parseJsonOption, settings } from '../context.js';

async function connected<T>(options: GlobalOptions, work: (client: Client) => Promise<T>): Promise<T> {
  const { baseUrl, apiKey } = settings(options);
  if (!apiKey) throw new UsageError('no API key: run `platform configure --api-key <key>` or set PLATFORM_API_KEY');
  const client = new Client({ name: 'platform-cli', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

const resultText = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

export function registerMcpCommands(program: Command): void {
  const mcp = program.command('mcp').description('your automations as MCP tools: what an agent connected to <base-url>/mcp sees');

  mcp
    .command('tools')
    .description('every tool your key gives an agent, with its title')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const tools = await connected(options, async (client) => {
        const all: Tool[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {});
          all.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor);
        return all;
      });
      output(options, tools, () => (tools.length ? tools.map((tool) => `${tool.name}  ${tool.title ?? ''}`) : 'no tools'));
    });

  mcp
    .command('call <tool>')
    .description('call one tool as an agent would; exit code 3 when the tool answers with an error')
    .option('--args <json>', 'the arguments, a JSON object', '{}')
    .action(async (tool: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const args = parseJsonOption('args', options.args);
      if (!args || typeof args !== 'object' || Array.isArray(args)) throw new UsageError('--args must be a JSON object');
      const result = (await connected(options, (client) => client.callTool({ name: tool, arguments: args as Record<string, unknown> }))) as CallToolResult;
      output(options, result, () => resultText(result));
      if (result.isError) process.exitCode = exitCodes.runFailed;
    });
}
