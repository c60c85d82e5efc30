// POST /mcp: tools/list over a catalog of 200 resource-method tools, and a resource method called as an MCP tool against
// the same call through POST /api/sdk/v1/resources/{id}/call, in one run: the difference is what MCP adds per call.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchFigure, type LoadTestOptions, assertAllOk, loadTest, startBarePlatform, warmUp } from './support.js';

export const name = 'mcp';
export const description = 'MCP server: tools/list with 200 tools, and a resource tool call against the same REST call (1 connection)';

const seconds = 6;
const round2 = (value: number) => Math.round(value * 100) / 100;

async function request(url: string, apiKey: string, body?: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

async function measure(label: string, load: Omit<LoadTestOptions, 'durationSeconds' | 'connections'>) {
  await warmUp({ ...load, connections: 1 });
  const result = await loadTest({ ...load, connections: 1, durationSeconds: seconds });
  assertAllOk(result, label);
  return result;
}

export async function run(): Promise<BenchFigure[]> {
  const upstream = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"tempC":4}'));
  await new Promise<void>((listening) => upstream.listen(0, '127.0.0.1', listening));
  const platform = await startBarePlatform();
  try {
    const { apiKey } = platform.dev;
    const api = `${platform.baseUrl}/api/sdk/v1/resources`;
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const methods = Array.from({ length: 100 }, (_, index) => ({
      name: `get${index}`,
      httpMethod: 'GET',
      path: `/forecast/${index}`,
      parameters: { city: { type: 'string', required: false } },
    }));
    const resourceIds: string[] = [];
    for (const resourceName of ['bench-mcp-a', 'bench-mcp-b']) {
      const created = await request(api, apiKey, {
        name: resourceName,
        description: 'MCP bench',
        resourceType: 'api',
        openApiSpec: {
          openapi: '3.0.3',
          info: { title: 'Bench', version: '1' },
          paths: { '/forecast/{n}': { get: { responses: { '200': { description: 'ok' } } } } },
        },
        endpoint: { baseUrl: upstreamUrl, authentication: 'none', methods },
        pricing: { model: 'pay-per-call', basePrice: 0.001 },
      });
      const resourceId = String(created.data.id);
      await request(`${api}/${resourceId}/publish`, apiKey);
      await request(`${api}/${resourceId}/install`, apiKey);
      resourceIds.push(resourceId);
    }
    const mcpHeaders = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const mcp = (method: string, params: Record<string, unknown>) => ({
      url: `${platform.baseUrl}/mcp`,
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const listed = await fetch(`${platform.baseUrl}/mcp`, mcp('tools/list', {}));
    const page = (await listed.json()) as { result: { tools: unknown[]; nextCursor?: string } };
    if (page.result.tools.length !== 100 || !page.result.nextCursor) throw new Error('tools/list did not page a catalog of 200 tools');

    const list = await measure('tools/list', mcp('tools/list', {}));
    const viaMcp = await measure('mcp tool call', mcp('tools/call', { name: 'resource.bench-mcp-a.get1', arguments: { city: 'Oslo' } }));
    const viaRest = await measure('rest call', {
      url: `${api}/${resourceIds[0]}/call`,
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'get1', params: { city: 'Oslo' } }),
    });
    return [
      { name: `${name}.tools_list_200_p50_ms`, value: round2(list.p50Ms), unit: 'ms', target: 20, better: 'lower' },
      {
        name: `${name}.tool_call_added_p50_ms`,
        value: round2(viaMcp.p50Ms - viaRest.p50Ms),
        unit: 'ms',
        target: 3,
        better: 'lower',
        baseline: { name: `${name}.rest_call_p50_ms`, value: round2(viaRest.p50Ms) },
      },
      { name: `${name}.tool_call_p50_ms`, value: round2(viaMcp.p50Ms), unit: 'ms', target: 15, better: 'lower' },
      { name: `${name}.rest_call_p50_ms`, value: round2(viaRest.p50Ms), unit: 'ms', target: 15, better: 'lower' },
    ];
  } finally {
    upstream.closeAllConnections();
    upstream.close();
    await platform.stop();
  }
}
