// The marketplace's MCP server paid through x402's MCP transport, on the embedded bank: the SDK's MCP client lists
// the paid listings and calls one; an unpaid call answers the tool-result binding; @x402/core's client (with @x402/svm)
// builds the PaymentPayload the call carries in _meta["x402/payment"]; refused payloads pay and run nothing.
import { createKeyPairSignerFromBytes } from '@solana/kit';
import type { Keypair } from '@solana/web3.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactSvmScheme, toClientSvmSigner } from '@x402/svm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentHeader, selectOffer } from '../../functions/payments/client.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { givenPayer, paymentWorld, tokenBalance } from '../support/payments.js';

const world = paymentWorld();
let usdcMint: string;
let platformWallet: string;
let offers: PaymentRequirement[];
let tool: string;
const clients: Client[] = [];

beforeAll(async () => {
  offers = (await world.api.request('GET', world.paidPath)).body.accepts;
  ({ asset: usdcMint, payTo: platformWallet } = offers[0]!);
  tool = `${world.resourceId}.getForecast`;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connected(): Promise<Client> {
  const client = new Client({ name: 'payments-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${world.api.baseUrl}/mcp/marketplace`)));
  clients.push(client);
  return client;
}

const upstreamCalls = () => world.upstream.received.filter((request) => request.url.includes('/forecast')).length;

async function payerX402(payer: Keypair) {
  const signer = toClientSvmSigner(await createKeyPairSignerFromBytes(payer.secretKey));
  return new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: `${world.api.baseUrl}/solana` }));
}

const call = (client: Client, payment?: unknown) =>
  client.callTool({
    name: tool,
    arguments: { city: 'Oslo', days: 2 },
    ...(payment !== undefined && { _meta: { 'x402/payment': payment } }),
  }) as Promise<CallToolResult>;

async function balances(payer: Keypair) {
  const [payerUsdc, platformUsdc] = await Promise.all([
    tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58()),
    tokenBalance(world.connection, usdcMint, platformWallet),
  ]);
  return { payerUsdc, platformUsdc };
}

/** The v2 payload of the project's own split payment, from its header. */
function splitPayload(change: (offer: PaymentRequirement) => PaymentRequirement, payer: Keypair, blockhash: string): Record<string, any> {
  const header = createPaymentHeader(change(selectOffer({ accepts: offers })), payer, blockhash, { version: 2 });
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
}

describe('payments over MCP: the marketplace server', () => {
  it('lists the paid listing as a tool with its input schema, and an unpaid call answers the x402 tool-result binding with bazaar discovery', async () => {
    // Prepare
    const client = await connected();
    const callsBefore = upstreamCalls();
    // Act
    const { tools } = await client.listTools();
    const unpaid = await call(client);
    // Assess
    const listed = tools.find((candidate) => candidate.name === tool);
    expect(listed).toMatchObject({ inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, openWorldHint: true } });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired & { extensions: Record<string, any> };
    expect(required).toMatchObject({ x402Version: 2, resource: { url: `${world.api.baseUrl}/mcp/marketplace` } });
    expect(required.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: expect.stringMatching(/^solana:/),
      amount: '10000',
      asset: usdcMint,
      payTo: platformWallet,
    });
    expect(required.extensions.bazaar.info.input).toMatchObject({ type: 'mcp', tool, inputSchema: listed!.inputSchema });
    const text = JSON.parse((unpaid.content as Array<{ text: string }>)[0]!.text);
    expect(text['x402/error']).toEqual({ code: 402, message: required.error, data: required });
    expect(upstreamCalls()).toBe(callsBefore);
  });

  it('a standard x402 v2 client pays once: the payer is debited once, the owner is owed 90%, the record says mcp, a replayed payload is refused', async () => {
    // Prepare
    const client = await connected();
    const payer = await givenPayer(world.api);
    const x402 = await payerX402(payer);
    const before = await balances(payer);
    const callsBefore = upstreamCalls();
    // Act
    const required = (await call(client)).structuredContent as unknown as PaymentRequired;
    const payload: PaymentPayload = await x402.createPaymentPayload(required);
    const paid = await call(client, payload);
    const afterPaying = await balances(payer);
    const replay = await call(client, payload);
    // Assess
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ forecast: 'sunny' });
    const settlement = paid._meta?.['x402/payment-response'] as Record<string, any>;
    expect(settlement).toMatchObject({ success: true, network: required.accepts[0]!.network, payer: payer.publicKey.toBase58() });
    expect(afterPaying.payerUsdc).toBe(before.payerUsdc - 10_000n);
    expect(afterPaying.platformUsdc).toBe(before.platformUsdc + 10_000n);
    const record = (await world.api.as(world.owner.apiKey).get(`/api/sdk/v1/payments/${settlement.transaction}`)).body.data;
    expect(record).toMatchObject({
      settlementStatus: 'confirmed',
      totalAmount: '10000',
      agentOwnerAmount: '9000',
      serverFeeAmount: '1000',
      trigger: { type: 'mcp' },
    });
    expect(replay.isError).toBe(true);
    expect(replay.structuredContent).toMatchObject({
      errorCode: 'ALREADY_SETTLED',
      'x402/payment-response': { success: false, errorReason: 'ALREADY_SETTLED' },
    });
    expect(await balances(payer)).toEqual(afterPaying);
    expect(upstreamCalls()).toBe(callsBefore + 1);
  });

  it('refuses forged, underpaid, wrong-network, expired and malformed payloads: nothing is paid and nothing runs', async () => {
    // Prepare
    const client = await connected();
    const payer = await givenPayer(world.api);
    const { blockhash } = await world.connection.getLatestBlockhash();
    const forged = splitPayload((offer) => offer, payer, blockhash);
    const signed = Buffer.from(forged.payload.transaction, 'base64');
    signed[10] = signed[10]! ^ 0xff;
    forged.payload.transaction = signed.toString('base64');
    const cases = {
      forged: forged,
      underpaid: splitPayload((offer) => ({ ...offer, maxAmountRequired: '5000' }), payer, blockhash),
      'wrong network': {
        ...splitPayload((offer) => offer, payer, blockhash),
        accepted: { ...splitPayload((offer) => offer, payer, blockhash).accepted, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' },
      },
      expired: splitPayload((offer) => offer, payer, '11111111111111111111111111111111'),
      malformed: { x402Version: 2, payload: 'nothing' },
    };
    const before = await balances(payer);
    const callsBefore = upstreamCalls();
    // Act
    const answers = Object.fromEntries(await Promise.all(Object.entries(cases).map(async ([name, payload]) => [name, await call(client, payload)] as const)));
    // Assess
    expect(Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, [answer.isError, (answer.structuredContent as any)?.errorCode]]))).toEqual(
      {
        forged: [true, 'INVALID_PAYMENT'],
        underpaid: [true, 'INSUFFICIENT_AMOUNT'],
        'wrong network': [true, 'NETWORK_MISMATCH'],
        expired: [true, 'SETTLEMENT_FAILED'],
        malformed: [true, 'INVALID_PAYMENT'],
      },
    );
    expect(await balances(payer)).toEqual(before);
    expect(upstreamCalls()).toBe(callsBefore);
  });

  it('serves discovery: /.well-known/x402 lists the listing over HTTP and MCP with its offers and bazaar info valid against its schema; server.json names both servers', async () => {
    // Act
    const x402 = await world.api.request('GET', '/.well-known/x402?limit=100');
    const serverJson = await world.api.request('GET', '/.well-known/mcp/server.json');
    const http402 = await world.api.request('GET', world.paidPath);
    // Assess
    const items = x402.body.items.filter(
      (item: { resource: string; tool?: string }) => item.resource.endsWith(`/${world.resourceId}/getForecast`) || item.tool === tool,
    );
    expect(items.map((item: { type: string }) => item.type)).toEqual(['http', 'mcp']);
    for (const item of items) {
      expect(item.accepts[0]).toMatchObject({ amount: '10000', asset: usdcMint, payTo: platformWallet, network: expect.stringMatching(/^solana:/) });
      const { info, schema } = item.extensions.bazaar;
      const validate = new Ajv2020({ strict: false }).compile(schema);
      expect(validate(info), JSON.stringify(validate.errors)).toBe(true);
    }
    const header = JSON.parse(Buffer.from(http402.headers.get('payment-required')!, 'base64').toString('utf8'));
    expect(header.extensions.bazaar.info.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json' });
    expect(serverJson.body).toMatchObject({ name: expect.stringMatching(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/), version: expect.any(String) });
    expect(serverJson.body.description.length).toBeLessThanOrEqual(100);
    expect(serverJson.body.remotes).toEqual([
      expect.objectContaining({ type: 'streamable-http', url: `${world.api.baseUrl}/mcp` }),
      { type: 'streamable-http', url: `${world.api.baseUrl}/mcp/marketplace` },
    ]);
  });

  it('answers an unknown tool and arguments that do not fit with a tool error, GET with 405', async () => {
    // Prepare
    const client = await connected();
    // Act
    const unknown = (await client.callTool({ name: 'res_nothing.nothing', arguments: {} })) as CallToolResult;
    const get = await world.api.request('GET', '/mcp/marketplace');
    // Assess
    expect(unknown).toMatchObject({ isError: true, structuredContent: { error: { code: 'NOT_FOUND' } } });
    expect(get.status).toBe(405);
  });
});
