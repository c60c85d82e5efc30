import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { createPaymentHeader, selectOffer } from '../../functions/payments/client.js';
import type { ServedResponse } from '../../functions/payments/errors.js';
import type { Landed, PlatformSigners, Settlement, SolanaLedger } from '../../functions/payments/ports.js';
import type { PaymentResources, ResourceForSale } from '../../functions/payments/resources-port.js';
import { createPaymentService } from '../../functions/payments/service.js';
import type { PaymentStore, StoredPayment } from '../../functions/payments/store.js';
import { recordingMetrics } from '../support/metrics.js';
import type { PayoutStore } from '../../functions/payments/payout-store.js';
import type { PayoutService } from '../../functions/payments/payouts.js';

const platformWallet = Keypair.generate().publicKey.toBase58();
const usdcMint = Keypair.generate().publicKey.toBase58();
const ownerWallet = Keypair.generate().publicKey.toBase58();
const blockhash = Keypair.generate().publicKey.toBase58();
const feePayer = Keypair.generate().publicKey.toBase58();

/** The store's contract in memory: the conditional claim and the pending -> settled move. */
function memoryStore(): PaymentStore & { items: Map<string, StoredPayment> } {
  const items = new Map<string, StoredPayment>();
  return {
    items,
    async claim(payment) {
      const existing = items.get(payment.txHash);
      if (existing && existing.settlementStatus !== 'failed') return false;
      items.set(payment.txHash, structuredClone(payment));
      return true;
    },
    get: async (txHash) => structuredClone(items.get(txHash)),
    async settle(txHash, outcome) {
      const item = items.get(txHash);
      if (item?.settlementStatus !== 'pending') throw Object.assign(new Error('condition'), { name: 'ConditionalCheckFailedException' });
      Object.assign(item, outcome);
    },
    async saveResponse(txHash, response) {
      items.get(txHash)!.response = response;
    },
    listByOwner: async (owner) => [...items.values()].filter((item) => item.agentOwnerId === owner),
  };
}

interface Options {
  settlement?: Settlement;
  /** What the network says later about a transaction; unknown by default. */
  landed?: Landed;
  resource?: Partial<ResourceForSale>;
  wallet?: string | null;
  priceUsd?: number;
}

function given(options: Options = {}) {
  const store = memoryStore();
  let now = Date.parse('2026-03-01T12:00:00Z');
  let blockhashValid = true;
  const clock = { now: () => now, nowIso: () => new Date(now).toISOString() };
  const revenue: number[] = [];
  const calls: string[] = [];
  const ledger: SolanaLedger = {
    info: async () => ({ network: 'solana-devnet', usdcMint, platformWallet, feePayer }),
    isBlockhashValid: async (hash) => blockhashValid && hash === blockhash,
    latestBlockhash: async () => blockhash,
    lamports: async () => 0n,
    rentExemptMinimum: async () => 890_880n,
    simulate: async () => ({ ok: true }),
    status: async () => options.landed,
    settle: async () => options.settlement ?? { status: 'confirmed', blockHeight: 77 },
  };
  const resources: PaymentResources = {
    get: async (resourceId) => ({
      resourceId,
      name: 'Weather',
      description: 'forecasts',
      published: true,
      ownerId: 'usr_owner',
      methods: [{ name: 'forecast', priceUsd: options.priceUsd ?? 0.01, definition: { name: 'forecast', httpMethod: 'GET', path: '/', parameters: [] } }],
      ...options.resource,
    }),
    listed: async () => [],
    checkParams: () => undefined,
    async call(request): Promise<ServedResponse> {
      calls.push(request.method);
      return { status: 200, contentType: 'application/json', body: '{"ok":true}' };
    },
    recordRevenue: async (_id, usd) => void revenue.push(usd),
    seller: async (userId) => ({ userId, username: 'owner', walletAddress: options.wallet === undefined ? ownerWallet : options.wallet }),
  };
  const metrics = recordingMetrics();
  // Only the split offer is paid here; the payout offer's path is covered end to end on the local bank.
  const payoutStore = { splitOfferOnly: async () => true } as unknown as PayoutStore;
  const payouts = { isDue: async () => false } as unknown as PayoutService;
  const signers = async (): Promise<PlatformSigners> => ({ signAsFeePayer: async () => new Uint8Array(64), signAsSettlement: async () => new Uint8Array(64) });
  const service = createPaymentService({
    store,
    payoutStore,
    payouts,
    requestPayout: async () => undefined,
    ledger: async () => ledger,
    signers,
    resources,
    clock,
    metrics,
    solPriceUsd: 150,
  });
  const call = (payment?: string) =>
    service.paidCall({
      resourceId: 'res_1',
      methodName: 'forecast',
      baseUrl: 'http://local',
      params: { query: {} },
      ...(payment && { payment: { version: 1 as const, value: payment } }),
    });
  const later = (seconds: number, { blockhashExpired = false } = {}) => {
    now += seconds * 1000;
    blockhashValid = !blockhashExpired;
  };
  return { service, store, revenue, calls, call, later, metrics };
}

async function payment(setup: ReturnType<typeof given>) {
  const required = await setup.call();
  if (required.kind !== 'payment-required') throw new Error('expected 402');
  return createPaymentHeader(selectOffer(required, 'USDC'), Keypair.generate(), blockhash);
}

describe('payments service: settlement outcomes', () => {
  it('serves a confirmed payment once, counts its revenue once and keeps the response for a replay', async () => {
    // Prepare
    const setup = given();
    const header = await payment(setup);
    // Act
    const served = await setup.call(header);
    const replay = await setup.call(header);
    // Assess
    expect(served).toMatchObject({ kind: 'served', settlement: { success: true, blockHeight: 77, network: 'solana-devnet' } });
    expect(replay).toMatchObject({
      kind: 'payment-required',
      error: { code: 'ALREADY_SETTLED', extras: { earlierResponse: { status: 200, body: '{"ok":true}' } } },
    });
    expect(setup.revenue).toEqual([0.01]);
    expect(setup.calls).toEqual(['forecast']);
    expect(setup.metrics.points).toEqual([{ name: 'PaymentsSettled', unit: 'Count', value: 1, dimensions: { network: 'solana-devnet' } }]);
  });

  it('keeps a payment pending when confirmation times out, so the same transaction is never accepted again', async () => {
    // Prepare
    const setup = given({ settlement: { status: 'timeout' } });
    const header = await payment(setup);
    // Act
    const first = await setup.call(header);
    const again = await setup.call(header);
    // Assess
    expect(first).toMatchObject({ kind: 'payment-required', error: { code: 'SETTLEMENT_FAILED' } });
    expect(again).toMatchObject({ kind: 'payment-required', error: { code: 'ALREADY_SETTLED' } });
    expect([...setup.store.items.values()].map((item) => item.settlementStatus)).toEqual(['pending']);
    expect(setup.revenue).toEqual([]);
    expect(setup.calls).toEqual([]);
  });

  it('serves a timed-out payment to the next request carrying it once the network has confirmed it', async () => {
    // Prepare
    const setup = given({ settlement: { status: 'timeout' }, landed: { status: 'confirmed', blockHeight: 90 } });
    const header = await payment(setup);
    await setup.call(header);
    setup.later(60);
    // Act
    const retried = await setup.call(header);
    const replay = await setup.call(header);
    // Assess
    expect(retried).toMatchObject({ kind: 'served', settlement: { success: true, blockHeight: 90 } });
    expect(replay).toMatchObject({ error: { code: 'ALREADY_SETTLED' } });
    expect(setup.revenue).toEqual([0.01]);
    expect(setup.calls).toEqual(['forecast']);
  });

  it('fails a timed-out payment the network never saw once its blockhash has expired', async () => {
    // Prepare
    const setup = given({ settlement: { status: 'timeout' } });
    const header = await payment(setup);
    await setup.call(header);
    setup.later(120, { blockhashExpired: true });
    // Act
    const retried = await setup.call(header);
    // Assess
    expect(retried).toMatchObject({ error: { code: 'SETTLEMENT_FAILED' } });
    expect([...setup.store.items.values()]).toMatchObject([{ settlementStatus: 'failed', failureReason: expect.stringContaining('expired') }]);
    expect(setup.calls).toEqual([]);
  });

  it('records a rejected payment as failed, without revenue or call, and lets the same transaction be tried again', async () => {
    // Prepare
    const setup = given({ settlement: { status: 'failed', reason: 'InsufficientFundsForFee' } });
    const header = await payment(setup);
    // Act
    const first = await setup.call(header);
    const retried = await setup.call(header);
    // Assess
    expect(first).toMatchObject({ kind: 'payment-required', error: { code: 'SETTLEMENT_FAILED', extras: { settlement: { success: false } } } });
    expect(retried).toMatchObject({ error: { code: 'SETTLEMENT_FAILED' } });
    expect([...setup.store.items.values()]).toMatchObject([{ settlementStatus: 'failed', failureReason: 'InsufficientFundsForFee', blockHeight: null }]);
    expect(setup.revenue).toEqual([]);
    expect(setup.calls).toEqual([]);
    expect(setup.metrics.points).toEqual([]);
  });
});

describe('payments service: what can be sold', () => {
  it('refuses an owner without wallet and a free method with CONFLICT, and an unpublished resource with NOT_FOUND', async () => {
    // Act
    const [walletless, free, draft] = await Promise.allSettled([
      given({ wallet: null }).call(),
      given({ priceUsd: 0 }).call(),
      given({ resource: { published: false } }).call(),
    ]);
    // Assess
    expect(walletless).toMatchObject({ status: 'rejected', reason: { code: 'CONFLICT', details: { reason: 'owner_without_wallet' } } });
    expect(free).toMatchObject({ status: 'rejected', reason: { code: 'CONFLICT', details: { reason: 'free' } } });
    expect(draft).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND' } });
  });
});
