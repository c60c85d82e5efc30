import bs58 from 'bs58';
import { Keypair, SendTransactionError, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import type { Connection } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcLedger } from '../../functions/adapters/aws/solana-ledger.js';
import { localSolanaBank } from '../../functions/adapters/local/solana-bank.js';
import { createPaymentHeader, selectOffer } from '../../functions/payments/client.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { fund, givenPayer, headerWith, lamportBalance, solanaConnection, tokenBalance, tokenTransfer } from '../support/payments.js';
import { type Upstream, givenPublishedResource, startUpstream } from '../support/resources.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;
let stranger: TestUser;
let ownerWallet: string;
let resourceId: string;
let connection: Connection;
let offer: PaymentRequirement;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform({ ownTables: true }), startUpstream()]);
  ownerWallet = Keypair.generate().publicKey.toBase58();
  [owner, stranger] = await Promise.all([api.givenUser({ walletAddress: ownerWallet }), api.givenUser()]);
  resourceId = await givenPublishedResource(api, owner, {}, { baseUrl: `${upstream.baseUrl}/v1` });
  connection = solanaConnection(api);
  offer = selectOffer((await api.request('GET', `/api/x402/resources/${resourceId}/getForecast`)).body, 'USDC');
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

const blockhash = async () => (await connection.getLatestBlockhash()).blockhash;
const payloadOf = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
const facilitator = (operation: 'verify' | 'settle', header: string, requirements: object = offer) =>
  api.request('POST', `/api/x402/${operation}`, { body: { x402Version: 1, paymentPayload: payloadOf(header), paymentRequirements: requirements } });
const ownerPayments = async (query = '') => (await api.as(owner.apiKey).get(`/api/sdk/v1/payments${query}`)).body.data;

describe('payments: x402 facilitator operations', () => {
  it('lists the supported scheme and network for x402 v1 and v2, each with the fee payer', async () => {
    // Act
    const supported = await api.request('GET', '/api/x402/supported');
    // Assess
    const feePayer = localSolanaBank().feePayer.publicKey.toBase58();
    expect(supported.status).toBe(200);
    expect(supported.body).toEqual({
      kinds: [
        { x402Version: 1, scheme: 'exact', network: 'solana-devnet', extra: { feePayer } },
        { x402Version: 2, scheme: 'exact', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', extra: { feePayer } },
      ],
      signers: { 'solana:*': [feePayer] },
    });
  });

  it('verifies a valid payment without settling it, and says why others are invalid', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const hash = await blockhash();
    const valid = createPaymentHeader(offer, payer, hash);
    const broke = createPaymentHeader(offer, Keypair.generate(), hash);
    const before = await tokenBalance(connection, offer.asset, payer.publicKey.toBase58());
    // Act
    const verified = await facilitator('verify', valid);
    const underpaid = await facilitator('verify', headerWith(offer, payer, hash, [tokenTransfer(payer, offer.asset, offer.payTo, 9_000n)]));
    const unfunded = await facilitator('verify', broke);
    // Assess
    expect(verified.body).toEqual({ isValid: true, invalidReason: null, payer: payer.publicKey.toBase58() });
    expect(underpaid.body).toMatchObject({ isValid: false, invalidReason: 'INSUFFICIENT_AMOUNT' });
    expect(unfunded.body).toMatchObject({ isValid: false, invalidReason: 'SETTLEMENT_FAILED', invalidMessage: expect.stringContaining('reject') });
    expect(await tokenBalance(connection, offer.asset, payer.publicKey.toBase58())).toBe(before);
  });

  it('settles a payment once, records it, and refuses it afterwards on every path', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const header = createPaymentHeader(offer, payer, await blockhash());
    const ownerBefore = await tokenBalance(connection, offer.asset, ownerWallet);
    // Act
    const settled = await facilitator('settle', header);
    const again = await facilitator('settle', header);
    const paidCall = await api.request('GET', `/api/x402/resources/${resourceId}/getForecast?city=Rome`, { headers: { 'x-payment': header } });
    // Assess
    expect(settled.body).toEqual({
      success: true,
      errorReason: null,
      transaction: expect.any(String),
      network: 'solana-devnet',
      payer: payer.publicKey.toBase58(),
      blockHeight: expect.any(Number),
    });
    expect(again.body).toMatchObject({ success: false, errorReason: 'ALREADY_SETTLED', transaction: settled.body.transaction });
    expect(paidCall.body).toMatchObject({ error: 'ALREADY_SETTLED' });
    expect(await tokenBalance(connection, offer.asset, ownerWallet)).toBe(ownerBefore + 9_000n);
    expect((await ownerPayments()).payments.find((payment: { txHash: string }) => payment.txHash === settled.body.transaction)).toMatchObject({
      settlementStatus: 'confirmed',
      resourceId,
      amountUsd: 0.01,
    });
  });

  it("settles for a seller's own server when payTo is the wallet of the named platform user, and refuses anyone else", async () => {
    // Prepare
    const payer = await givenPayer(api);
    const external = {
      scheme: 'exact' as const,
      network: 'solana-devnet',
      maxAmountRequired: '5000',
      resource: 'https://api.seller.example/report',
      payTo: ownerWallet,
      asset: offer.asset,
      extra: { agentOwner: { userId: owner.userId } },
    };
    const hash = await blockhash();
    const header = createPaymentHeader({ ...offer, ...external, extra: offer.extra }, payer, hash);
    const someoneElse = Keypair.generate().publicKey.toBase58();
    // Act
    const settled = await facilitator('settle', header, external);
    const refused = await facilitator('verify', header, { ...external, payTo: someoneElse, extra: { agentOwner: { userId: stranger.userId } } });
    // Assess
    expect(settled.body).toMatchObject({ success: true });
    expect(refused.body).toMatchObject({ isValid: false, invalidReason: 'INVALID_PAYMENT' });
    expect((await ownerPayments()).payments.find((payment: { txHash: string }) => payment.txHash === settled.body.transaction)).toMatchObject({
      resourceId: null,
      resource: external.resource,
      totalAmount: '5000',
    });
  });

  it('refuses a malformed facilitator request with VALIDATION_ERROR', async () => {
    // Act
    const missing = await api.request('POST', '/api/x402/verify', {
      body: { x402Version: 1, paymentPayload: { x402Version: 1, scheme: 'exact', network: 'solana-devnet', payload: { transaction: 'AA==' } } },
    });
    const badVersion = await api.request('POST', '/api/x402/settle', { body: { x402Version: 7, paymentPayload: {}, paymentRequirements: offer } });
    // Assess
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'paymentRequirements', value: null } });
    expect(badVersion.status).toBe(400);
    expect(badVersion.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'x402Version', value: 7 } });
  });
});

describe('payments: payment records', () => {
  it('shows a seller their payments only, filtered and paginated', async () => {
    // Prepare
    const payer = await givenPayer(api);
    await api.request('GET', `/api/x402/resources/${resourceId}/getForecast?city=Lima`, {
      headers: { 'x-payment': createPaymentHeader(offer, payer, await blockhash()) },
    });
    // Act
    const mine = await ownerPayments(`?resourceId=${resourceId}&status=confirmed&limit=1`);
    const failedOnly = await ownerPayments('?status=failed');
    const theirs = await api.as(stranger.apiKey).get('/api/sdk/v1/payments');
    const anonymous = await api.request('GET', '/api/sdk/v1/payments');
    // Assess
    expect(mine).toMatchObject({ limit: 1, offset: 0, total: expect.any(Number) });
    expect(mine.total).toBeGreaterThanOrEqual(2);
    expect(mine.payments).toHaveLength(1);
    expect(mine.payments[0]).toMatchObject({ agentOwnerId: owner.userId, resourceId, settlementStatus: 'confirmed' });
    expect(failedOnly.payments).toEqual([]);
    expect(theirs.body.data).toEqual({ payments: [], total: 0, limit: 10, offset: 0 });
    expect(anonymous.status).toBe(401);
  });

  it('reads one payment by transaction hash for its seller only', async () => {
    // Prepare
    const payer = await givenPayer(api);
    const settled = await facilitator('settle', createPaymentHeader(offer, payer, await blockhash()));
    const txHash = settled.body.transaction as string;
    // Act
    const mine = await api.as(owner.apiKey).get(`/api/sdk/v1/payments/${txHash}`);
    const theirs = await api.as(stranger.apiKey).get(`/api/sdk/v1/payments/${txHash}`);
    const malformed = await api.as(owner.apiKey).get('/api/sdk/v1/payments/0OIl');
    // Assess
    expect(mine.status).toBe(200);
    expect(mine.body.data).toMatchObject({
      txHash,
      agentOwnerId: owner.userId,
      settlementStatus: 'confirmed',
      totalAmount: '10000',
      payer: payer.publicKey.toBase58(),
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ code: 'NOT_FOUND', details: { txHash } });
    expect(malformed.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'txHash', value: '0OIl' } });
  });

  it('refuses bad list filters with VALIDATION_ERROR', async () => {
    // Act
    const badStatus = await api.as(owner.apiKey).get('/api/sdk/v1/payments?status=settled');
    const badLimit = await api.as(owner.apiKey).get('/api/sdk/v1/payments?limit=0');
    // Assess
    expect(badStatus.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'status', value: 'settled' } });
    expect(badLimit.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'limit', value: '0' } });
  });
});

describe('payments: local Solana JSON-RPC and faucet', () => {
  it('lets a web3.js Connection read balances and send a transaction', async () => {
    // Prepare
    const sender = await givenPayer(api);
    const receiver = Keypair.generate().publicKey;
    const { blockhash: recent } = await connection.getLatestBlockhash();
    const transfer = new VersionedTransaction(
      new TransactionMessage({
        payerKey: sender.publicKey,
        recentBlockhash: recent,
        instructions: [SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: receiver, lamports: 2_000_000 })],
      }).compileToV0Message(),
    );
    transfer.sign([sender]);
    // Act
    const simulated = await connection.simulateTransaction(transfer);
    const signature = await connection.sendRawTransaction(transfer.serialize());
    const {
      value: [status],
    } = await connection.getSignatureStatuses([signature]);
    // Assess
    expect(simulated.value.err).toBeNull();
    expect(status).toMatchObject({ err: null, confirmationStatus: 'finalized' });
    expect(await connection.getBalance(receiver)).toBe(2_000_000);
    expect(await lamportBalance(connection, sender.publicKey.toBase58())).toBe(1_000_000_000n - 2_000_000n - 5_000n);
    expect(await connection.getAccountInfo(receiver)).toMatchObject({ lamports: 2_000_000, owner: SystemProgram.programId });
    expect(await tokenBalance(connection, offer.asset, sender.publicKey.toBase58())).toBe(10_000_000n);
    expect(await connection.getMinimumBalanceForRentExemption(0)).toBe(890_880);
  });

  it("refuses a failing transaction at preflight, as a validator's RPC does", async () => {
    // Prepare
    const sender = Keypair.generate();
    await fund(api, sender.publicKey.toBase58(), 'SOL', 0.01);
    const transfer = new VersionedTransaction(
      new TransactionMessage({
        payerKey: sender.publicKey,
        recentBlockhash: await blockhash(),
        instructions: [SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000_000 })],
      }).compileToV0Message(),
    );
    transfer.sign([sender]);
    // Act
    const sending = connection.sendRawTransaction(transfer.serialize());
    // Assess
    await expect(sending).rejects.toBeInstanceOf(SendTransactionError);
    expect(await connection.getBalance(sender.publicKey)).toBe(10_000_000);
  });

  it('answers unknown methods and bad params with JSON-RPC errors, and a request that is no JSON-RPC with VALIDATION_ERROR', async () => {
    // Act
    const unknown = await api.request('POST', '/solana', { body: { jsonrpc: '2.0', id: 1, method: 'getStakeActivation', params: [] } });
    const badParams = await api.request('POST', '/solana', { body: { jsonrpc: '2.0', id: 2, method: 'getBalance', params: ['not-an-address'] } });
    const notRpc = await api.request('POST', '/solana', { body: { id: 3, method: 'getSlot' } });
    // Assess
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32601 } });
    expect(badParams.body).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32602 } });
    expect(notRpc.status).toBe(400);
    expect(notRpc.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'jsonrpc', value: null } });
  });

  it('airdrops SOL and USDC, and refuses a bad address or asset with VALIDATION_ERROR', async () => {
    // Prepare
    const wallet = Keypair.generate().publicKey.toBase58();
    // Act
    const usdc = await api.request('POST', '/api/x402/dev/airdrop', { body: { address: wallet, asset: 'USDC', amount: 2.5 } });
    const badAddress = await api.request('POST', '/api/x402/dev/airdrop', { body: { address: 'nope', asset: 'SOL' } });
    const badAsset = await api.request('POST', '/api/x402/dev/airdrop', { body: { address: wallet, asset: 'BTC' } });
    // Assess
    expect(usdc.body.data).toEqual({ address: wallet, asset: 'USDC', mint: offer.asset, amount: 2.5, atomicAmount: '2500000', balance: '2500000' });
    expect(await tokenBalance(connection, offer.asset, wallet)).toBe(2_500_000n);
    expect(badAddress.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'address', value: 'nope' } });
    expect(badAsset.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'asset', value: 'BTC' } });
  });
});

describe('payments: the RPC ledger adapter (AWS code path) against the local JSON-RPC', () => {
  it('checks blockhashes, simulates, settles with a block height, and reports a rejected transaction as failed', async () => {
    // Prepare
    const ledger = rpcLedger({
      rpcUrl: `${api.baseUrl}/solana`,
      network: 'solana-devnet',
      platformWallet: async () => offer.extra.serverWalletAddress,
      feePayer: async () => localSolanaBank().feePayer.publicKey.toBase58(),
      pollMs: 10,
    });
    const payer = await givenPayer(api);
    const hash = await blockhash();
    const good = createPaymentHeader(offer, payer, hash);
    const wire = (header: string) => Buffer.from(payloadOf(header).payload.transaction, 'base64');
    const signature = (header: string) => VersionedTransaction.deserialize(wire(header)).signatures[0]!;
    const unfunded = createPaymentHeader(offer, Keypair.generate(), hash);
    // Act
    const info = await ledger.info();
    const valid = await ledger.isBlockhashValid(hash);
    const unknown = await ledger.isBlockhashValid(Keypair.generate().publicKey.toBase58());
    const simulated = await ledger.simulate(wire(good));
    const settled = await ledger.settle(wire(good), bs58.encode(signature(good)), 5_000);
    const rejected = await ledger.settle(wire(unfunded), bs58.encode(signature(unfunded)), 5_000);
    // Assess
    expect(info).toEqual({
      network: 'solana-devnet',
      usdcMint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      platformWallet: offer.extra.serverWalletAddress,
      feePayer: localSolanaBank().feePayer.publicKey.toBase58(),
    });
    expect([valid, unknown]).toEqual([true, false]);
    expect(simulated).toEqual({ ok: true });
    expect(settled).toEqual({ status: 'confirmed', blockHeight: expect.any(Number) });
    expect(rejected).toMatchObject({ status: 'failed', reason: expect.any(String) });
  });
});
