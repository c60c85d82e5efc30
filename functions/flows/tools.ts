// The tools an LLM flow offers its model: methods of the owner's installed resources and the owner's own scripts,
// as named in the flow's `recommendedTools`, each bound to the owner so every call runs with their permissions, and
// the tools of the remote MCP servers the flow names (`mcpServers`).
import type { ResourceCaller } from '#platform/ports.js';
import type { BoundTool, FlowScriptRunner, McpServerRef, RemoteMcpServers, ToolCatalog, ToolDefinition } from './ports.js';

interface Method {
  name: string;
  description?: string;
  /** USD per call. */
  cost?: number;
  parameters: Array<{ name: string; type: string; required: boolean; description?: string }>;
}

export interface ToolSources {
  /** The user's installed resources with their installed version's methods. */
  installedResources(userId: string): Promise<Array<{ resourceId: string; name: string; methods: Method[] }>>;
  ownedScripts(userId: string): Promise<Array<{ scriptId: string; name: string; description: string }>>;
  resources: () => ResourceCaller;
  scripts: FlowScriptRunner;
  mcp: RemoteMcpServers;
}

/** Tools taken from one remote server: its listing is the server's to fill, so it is bounded here. */
const maxToolsPerServer = 50;
/** A remote tool's input schema larger than this goes to the model as a plain object. */
const maxSchemaChars = 10_000;

/** OpenAI and Bedrock both want `^[a-zA-Z0-9_-]{1,64}$`. */
const toolName = (...parts: string[]) =>
  parts
    .map((part) => part.replace(/[^A-Za-z0-9_-]+/g, '_'))
    .join('__')
    .slice(0, 64);

/** A method parameter type (`string`, `integer`, `string[]`...) as JSON Schema. */
function schemaOf(type: string): Record<string, unknown> {
  if (type.endsWith('[]')) return { type: 'array', items: schemaOf(type.slice(0, -2)) };
  return ['string', 'number', 'integer', 'boolean', 'object', 'array'].includes(type) ? { type } : {};
}

function methodParameters(method: Method): Record<string, unknown> {
  const properties = Object.fromEntries(
    method.parameters.map((parameter) => [
      parameter.name,
      { ...schemaOf(parameter.type), ...(parameter.description && { description: parameter.description }) },
    ]),
  );
  const required = method.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  return { type: 'object', properties, ...(required.length > 0 && { required }) };
}

export function createToolCatalog(sources: ToolSources): ToolCatalog {
  /** A server's tools (those `allowedTools` names, when it does), each call one request through the outbound guard. */
  async function remoteTools(server: McpServerRef) {
    const listed = await sources.mcp.listTools(server.url);
    const chosen = (server.allowedTools ? listed.filter((tool) => server.allowedTools!.includes(tool.name)) : listed).slice(0, maxToolsPerServer);
    const host = new URL(server.url).hostname;
    return {
      missing: (server.allowedTools ?? []).filter((name) => !listed.some((tool) => tool.name === name)),
      tools: chosen.map(
        (tool) =>
          [
            {
              name: toolName(`mcp_${host}`, tool.name),
              description: `${host}: ${tool.description ?? tool.name}`.slice(0, 1000),
              parameters: JSON.stringify(tool.inputSchema).length <= maxSchemaChars ? tool.inputSchema : { type: 'object' },
            },
            async (args: Record<string, unknown>) => ({ output: await sources.mcp.callTool(server.url, tool.name, args), cost: 0 }),
          ] as const,
      ),
    };
  }

  return {
    async resolve(userId, recommended, flowId, mcpServers = [], executionId) {
      if (recommended.length === 0 && mcpServers.length === 0) return { tools: [], unknown: [] };
      const [resources, scripts] = await Promise.all([sources.installedResources(userId), sources.ownedScripts(userId)]);
      const tools = new Map<string, BoundTool>();
      const unknown: string[] = [];
      const add = (definition: ToolDefinition, invoke: BoundTool['invoke'], price?: number) => {
        let name = definition.name;
        for (let copy = 2; tools.has(name) && tools.get(name)!.definition.description !== definition.description; copy++)
          name = `${definition.name.slice(0, 60)}_${copy}`;
        tools.set(name, { definition: { ...definition, name }, invoke, ...(price !== undefined && { price }) });
      };
      const addMethod = (resource: (typeof resources)[number], method: Method) =>
        add(
          {
            name: toolName(resource.name, method.name),
            description: `${resource.name}: ${method.description ?? method.name}`.slice(0, 1000),
            parameters: methodParameters(method),
          },
          async (args) => {
            const call = await sources.resources().call({ userId, resource: resource.resourceId, method: method.name, params: args, source: 'flow' });
            return { output: { success: call.success, status: call.status, data: call.data }, cost: call.cost };
          },
          method.cost,
        );

      for (const entry of recommended) {
        const script = scripts.find((candidate) => candidate.scriptId === entry || candidate.name === entry);
        if (script) {
          add(
            {
              name: toolName('script', script.name),
              description: `Runs the script "${script.name}": ${script.description}`.slice(0, 1000),
              parameters: { type: 'object', properties: { data: { type: 'object', description: 'the event data the script receives' } } },
            },
            async (args) => {
              const run = await sources.scripts.run({
                scriptId: script.scriptId,
                userId,
                data: args.data ?? {},
                flowId,
                ...(executionId && { parent: { parentExecutionId: executionId } }),
              });
              return { output: { status: run.status, output: run.output, error: run.error }, cost: run.cost };
            },
          );
          continue;
        }
        const matched = resources.flatMap((resource) =>
          [resource.name, resource.resourceId].flatMap((label) => {
            if (entry === label) return resource.methods.map((method) => [resource, method] as const);
            const method = entry.startsWith(`${label}.`) ? resource.methods.find((candidate) => candidate.name === entry.slice(label.length + 1)) : undefined;
            return method ? [[resource, method] as const] : [];
          }),
        );
        if (matched.length === 0) unknown.push(entry);
        for (const [resource, method] of matched) addMethod(resource, method);
      }
      const remote = await Promise.all(
        mcpServers.map((server) => remoteTools(server).catch((error: Error) => ({ failed: `${server.url} (${error.message})` }))),
      );
      for (const [index, listed] of remote.entries()) {
        if ('failed' in listed) {
          unknown.push(listed.failed);
          continue;
        }
        for (const [definition, invoke] of listed.tools) add(definition, invoke);
        unknown.push(...listed.missing.map((name) => `${mcpServers[index]!.url} ${name}`));
      }
      return { tools: [...tools.values()], unknown };
    },
  };
}
