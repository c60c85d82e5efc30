// Agent budgets on paid calls made with an API key, through the marketplace's MCP server: a daily spend limit refuses
// with BUDGET_EXCEEDED, an approval threshold makes the call wait for the key owner's approval before it pays.
import { createKeyPairSignerFromBytes } from '@solana/kit';
import type { Keypair } from '@solana/web3.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { ExactSvmScheme, toClientSvmSigner } from '@x402/svm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../support/platform.js';
import { givenPayer, paymentWorld, tokenBalance } from '../support/payments.js';

const world = paymentWorld();
let agentOwner: TestUser;
let usdcMint: string;
let tool: string;
const clients: Client[] = [];

beforeAll(async () => {
  agentOwner = await world.api.givenUser();
  usdcMint = (await world.api.request('GET', world.paidPath)).body.accepts[0].asset;
  tool = `${world.resourceId}.getForecast`;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function agentKey(budget: Record<string, number>): Promise<string> {
  const created = await world.api.as(agentOwner.apiKey).post('/api/sdk/v1/keys', { name: 'agent', ...budget });
  expect(created.status).toBe(201);
  return created.body.data.apiKey;
}

async function agent(apiKey: string, payer: Keypair) {
  const client = new Client({ name: 'budget-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${world.api.baseUrl}/mcp/marketplace`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
  );
  clients.push(client);
  const signer = toClientSvmSigner(await createKeyPairSignerFromBytes(payer.secretKey));
  const x402 = new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: `${world.api.baseUrl}/solana` }));
  const call = (meta: Record<string, unknown> = {}) => client.callTool({ name: tool, arguments: { city: 'Oslo' }, _meta: meta }) as Promise<CallToolResult>;
  /** Asks the price, pays it (a fresh payload), with `meta` besides. */
  const pay = async (meta: Record<string, unknown> = {}) => {
    const required = (await call()).structuredContent as unknown as PaymentRequired;
    return call({ ...meta, 'x402/payment': await x402.createPaymentPayload(required) });
  };
  return { pay };
}

const upstreamCalls = () => world.upstream.received.filter((request) => request.url.includes('/forecast')).length;

describe('payments: agent budgets', () => {
  it('refuses a paid call past the key’s daily spend limit with BUDGET_EXCEEDED, paying and running nothing', async () => {
    // Prepare: the price is 0.01 USD, the limit covers one call
    const payer = await givenPayer(world.api);
    const { pay } = await agent(await agentKey({ spendLimitUsd: 0.015 }), payer);
    // Act
    const first = await pay();
    const balance = await tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58());
    const calls = upstreamCalls();
    const second = await pay();
    // Assess
    expect(first.isError).toBeFalsy();
    expect(second).toMatchObject({ isError: true, structuredContent: { error: { code: 'BUDGET_EXCEEDED' } } });
    expect(await tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58())).toBe(balance);
    expect(upstreamCalls()).toBe(calls);
  });

  it('makes a call above the approval threshold wait for the owner: nothing paid while pending, paid once after approve', async () => {
    // Prepare
    const payer = await givenPayer(world.api);
    const { pay } = await agent(await agentKey({ approvalAboveUsd: 0.005 }), payer);
    const before = await tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58());
    // Act
    const waiting = await pay();
    const approvalId = (waiting.structuredContent as any)?.waitingFor?.approvalId;
    const pending = (await world.api.as(agentOwner.apiKey).get('/api/sdk/v1/approvals')).body.data.approvals;
    const stillPending = await pay({ 'platform/approvalId': approvalId });
    const whilePending = await tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58());
    const decided = await world.api.as(agentOwner.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, { decision: 'approve' });
    const paid = await pay({ 'platform/approvalId': approvalId });
    const reused = await pay({ 'platform/approvalId': approvalId });
    // Assess
    expect(waiting.structuredContent).toMatchObject({ status: 'waiting', waitingFor: { type: 'approval', approvalId: expect.any(String) } });
    expect(pending.map((approval: { approvalId: string }) => approval.approvalId)).toContain(approvalId);
    expect(stillPending.structuredContent).toMatchObject({ status: 'waiting' });
    expect(whilePending).toBe(before);
    expect(decided.status).toBe(200);
    expect(paid.isError).toBeFalsy();
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    expect(reused).toMatchObject({ isError: true, structuredContent: { error: { code: 'CONFLICT' } } });
    expect(await tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58())).toBe(before - 10_000n);
  });

  it('pays nothing when the owner rejects', async () => {
    // Prepare
    const payer = await givenPayer(world.api);
    const { pay } = await agent(await agentKey({ approvalAboveUsd: 0 }), payer);
    const before = await tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58());
    const approvalId = ((await pay()).structuredContent as any).waitingFor.approvalId;
    // Act
    await world.api.as(agentOwner.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, { decision: 'reject' });
    const refused = await pay({ 'platform/approvalId': approvalId });
    // Assess
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: 'FORBIDDEN' } } });
    expect(await tokenBalance(world.connection, usdcMint, payer.publicKey.toBase58())).toBe(before);
  });

  it('validates budgets at key creation and update', async () => {
    // Act
    const negative = await world.api.as(agentOwner.apiKey).post('/api/sdk/v1/keys', { name: 'agent', spendLimitUsd: -1 });
    const huge = await world.api.as(agentOwner.apiKey).post('/api/sdk/v1/keys', { name: 'agent', approvalAboveUsd: 1e9 });
    const created = await world.api.as(agentOwner.apiKey).post('/api/sdk/v1/keys', { name: 'agent', spendLimitUsd: 5 });
    const updated = await world.api.as(agentOwner.apiKey).patch(`/api/sdk/v1/keys/${created.body.data.keyId}`, { spendLimitUsd: null, approvalAboveUsd: 1 });
    // Assess
    expect([negative.status, negative.body.error.code, huge.status]).toEqual([400, 'VALIDATION_ERROR', 400]);
    expect(created.body.data).toMatchObject({ spendLimitUsd: 5 });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ approvalAboveUsd: 1 });
    expect(updated.body.data.spendLimitUsd).toBeUndefined();
  });
});
