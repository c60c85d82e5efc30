// A paid call over MCP (the marketplace server, x402's MCP transport) against the same paid call over HTTP, in one
// run on one platform, interleaved so both see the same machine: the same split payment (USDC, settled on the embedded
// bank), the same resource. Only the paid request is timed; the MCP client connects once.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPaymentHeader } from '../functions/payments/client.js';
import { call, givenPaidCall, startUpstream } from './payments.bench.js';
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'mcp-payments';
export const description = 'a paid call through the marketplace MCP server against the same paid call over HTTP (p50, one run)';

const rounds = 100;
const round2 = (value: number) => Math.round(value * 100) / 100;

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  const upstream = await startUpstream();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  try {
    const { baseUrl, dev } = platform;
    const { resourceId, url, offer, payer, connection } = await givenPaidCall(baseUrl, dev.apiKey, upstream.baseUrl);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp/marketplace`)));
    const http: number[] = [];
    const mcp: number[] = [];
    let recent = '';
    for (let index = 0; index < rounds; index++) {
      if (index % 25 === 0) recent = (await connection.getLatestBlockhash()).blockhash;
      const overHttp = createPaymentHeader(offer, payer, recent, { version: 2 });
      let before = performance.now();
      const paid = await call(url, { headers: { 'payment-signature': overHttp } });
      http.push(performance.now() - before);
      if (paid.status !== 200) throw new Error(`HTTP paid call ${index} answered ${paid.status}: ${paid.text}`);
      const payload = JSON.parse(Buffer.from(createPaymentHeader(offer, payer, recent, { version: 2 }), 'base64').toString('utf8'));
      before = performance.now();
      const result = await client.callTool({ name: `${resourceId}.forecast`, arguments: {}, _meta: { 'x402/payment': payload } });
      mcp.push(performance.now() - before);
      if (result.isError) throw new Error(`MCP paid call ${index} failed: ${JSON.stringify(result.structuredContent)}`);
    }
    http.sort((a, b) => a - b);
    mcp.sort((a, b) => a - b);
    const [httpP50, mcpP50] = [percentile(http, 50), percentile(mcp, 50)];
    console.log(`  paid call p50: MCP ${round2(mcpP50)} ms, HTTP ${round2(httpP50)} ms (ratio ${round2(mcpP50 / httpP50)})`);
    return [
      {
        name: `${name}.paid_call_p50_ms`,
        value: round2(mcpP50),
        unit: 'ms',
        target: round2(1.2 * httpP50),
        better: 'lower',
        baseline: { name: `${name}.http_paid_call_p50_ms`, value: round2(httpP50) },
      },
      { name: `${name}.p50_ratio_to_http`, value: round2(mcpP50 / httpP50), unit: 'x', target: 1.2, better: 'lower' },
    ];
  } finally {
    await client.close();
    await new Promise<void>((closed) => {
      upstream.server.closeAllConnections();
      upstream.server.close(() => closed());
    });
    await platform.stop();
  }
}
