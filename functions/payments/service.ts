// The payments area's rules: what a paid call costs, the paid call itself, the x402 facilitator operations, records.
import type { Clock } from '#platform/clock.js';
import { AppError, ConflictError, NotFoundError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import type { Caller } from '#platform/caller.js';
import type { MetricsPort } from '#platform/ports.js';
import { PaymentError, type ServedResponse, type SettlementProof } from './errors.js';
import type { LedgerInfo, PlatformSigners, SolanaLedger } from './ports.js';
import { type X402Version, caip2Networks, nativeSolMint } from './networks.js';
import type { PayoutStore } from './payout-store.js';
import type { PayoutService } from './payouts.js';
import { messageBytes, withSignature } from './transaction.js';
import { buildRequirements, parsePaidCallUrl } from './requirements.js';
import { type MethodForSale, type PaymentResources, type ResourceForSale, paramsFromQuery } from './resources-port.js';
import type { PaymentTerms } from './rules.js';
import type { FacilitatorInput, PaymentRecord, PaymentRequirement, PaymentTrigger, SettlementStatus } from './schemas.js';
import { maxTimeoutSeconds } from './settings.js';
import { sellableMethodName } from './schemas.js';
import { type SaleContext, alreadySettled, proofOf, settleVerified } from './settlement.js';
import type { PaymentStore, StoredPayment } from './store.js';
import type { VerifiedPayment } from './verification.js';
import { decodePaymentHeader, readPaymentPayload, toNetwork } from './x402-codec.js';

// The rules read transactions with @solana/web3.js, which loads here with a payment's first verification (as the
// ledger does): the handlers of listings and settings compose this service too, and never verify a payment.
const verification = () => import('./verification.js');

export interface PaymentServiceDeps {
  store: PaymentStore;
  payoutStore: PayoutStore;
  payouts: PayoutService;
  /** Asks for a payout run for one owner and asset now (their owed sum crossed the threshold). */
  requestPayout: (ownerId: string, asset: string) => Promise<void>;
  ledger: () => Promise<SolanaLedger>;
  signers: () => Promise<PlatformSigners>;
  resources: PaymentResources;
  clock: Clock;
  metrics: MetricsPort;
  solPriceUsd: number;
}

export interface PaidCallRequest {
  resourceId: string;
  methodName: string;
  baseUrl: string;
  /** GET carries params in the query string, POST in the JSON body. */
  params: { query: Record<string, string> } | { body: Record<string, unknown> };
  /** The x402 header of an HTTP call, or the payload the MCP transport carries in `_meta["x402/payment"]` (always v2). */
  payment?: { version: X402Version; value: string } | { version: 2; payload: unknown };
  /** How the call came, kept on the payment record: `mcp` with the client's name for the MCP server's tool calls. */
  trigger?: PaymentTrigger;
  /**
   * Asked once the payment verified and before it settles (an agent key's budget): it throws to refuse, or answers that
   * the call waits for an approval; either way nothing is paid or run. An admitted call that then fails to settle is
   * released.
   */
  admit?: (sale: { resourceId: string; methodName: string; amountUsd: number }) => Promise<Admission>;
}

export type Admission = { kind: 'admitted'; release(): Promise<void> } | { kind: 'waiting'; waiting: Record<string, unknown> };

/** What is sold: the paid-call outcomes carry it for discovery (the `bazaar` extension). */
export interface Listing {
  resource: ResourceForSale;
  method: MethodForSale;
}

export type PaidCallOutcome =
  | { kind: 'payment-required'; accepts: PaymentRequirement[]; version: X402Version; listing: Listing; error?: PaymentError }
  | { kind: 'waiting'; waiting: Record<string, unknown>; listing: Listing }
  | { kind: 'served'; response: ServedResponse; settlement: SettlementProof; version: X402Version; listing: Listing };

const toRecord = ({ response: _response, x402Version: _version, confirmedAt: _confirmedAt, ...record }: StoredPayment): PaymentRecord => ({
  ...record,
  settlement: record.settlement ?? 'split',
});

export function createPaymentService(deps: PaymentServiceDeps) {
  const { store, resources, clock, metrics } = deps;

  async function ledgerWithInfo(): Promise<{ ledger: SolanaLedger; info: LedgerInfo }> {
    const ledger = await deps.ledger();
    return { ledger, info: await ledger.info() };
  }

  /** What one paid call costs and to whom; NOT_FOUND for unpublished resources, CONFLICT when it cannot be sold. */
  async function offers(resourceId: string, methodName: string, baseUrl: string, { ledger, info }: { ledger: SolanaLedger; info: LedgerInfo }) {
    const resource = await resources.get(resourceId);
    if (!resource.published) throw new NotFoundError('resourceId', resourceId, 'resource');
    const method = resource.methods.find((candidate) => candidate.name === methodName);
    if (!method) throw new NotFoundError('methodName', methodName, 'method');
    if (method.priceUsd <= 0) {
      throw new ConflictError(
        `method ${methodName} of resource ${resourceId} is free, so it is not sold through x402: install the resource and call it with an API key`,
        { resourceId, reason: 'free' },
      );
    }
    const seller = await resources.seller(resource.ownerId);
    if (!seller?.walletAddress) {
      throw new ConflictError(
        `resource ${resourceId} cannot be sold: its owner has no wallet address to receive payments (PATCH /api/sdk/v1/me with walletAddress)`,
        {
          resourceId,
          reason: 'owner_without_wallet',
        },
      );
    }
    const [splitOfferOnly, ownerLamports, rentExemptMinimum] = await Promise.all([
      deps.payoutStore.splitOfferOnly(seller.userId),
      ledger.lamports(seller.walletAddress),
      ledger.rentExemptMinimum(),
    ]);
    const accepts = buildRequirements({
      resource,
      method,
      seller: { ...seller, walletAddress: seller.walletAddress },
      baseUrl,
      ledger: info,
      solPriceUsd: deps.solPriceUsd,
      payoutOffer: !splitOfferOnly,
      ownerLamports,
      rentExemptMinimum,
    });
    return { resource, method, seller, accepts };
  }

  /** The terms and sale of a facilitator request: one of our paid calls is priced by us, anything else as given. */
  async function facilitatorTerms(
    requirement: FacilitatorInput['paymentRequirements'],
    { ledger, info }: { ledger: SolanaLedger; info: LedgerInfo },
  ): Promise<{ terms: PaymentTerms; sale: Omit<SaleContext, 'network' | 'x402Version'> }> {
    if (requirement.scheme !== 'exact') throw new PaymentError('INVALID_PAYMENT', `scheme ${requirement.scheme} is not supported; use exact`);
    if (toNetwork(requirement.network) !== info.network)
      throw new PaymentError('NETWORK_MISMATCH', `this facilitator settles on ${info.network}, not ${requirement.network}`);
    const serverWallet = requirement.extra?.serverWalletAddress;
    if (serverWallet !== undefined && serverWallet !== info.platformWallet)
      throw new PaymentError('INVALID_PAYMENT', `the platform's 10% goes to ${info.platformWallet}, not ${String(serverWallet)}`);
    const feePayer = requirement.extra?.feePayer;
    if (feePayer !== undefined && feePayer !== info.feePayer) {
      throw new PaymentError('INVALID_PAYMENT', `this facilitator's fee payer is ${info.feePayer}, not ${String(feePayer)}`, {
        reason: 'fee_payer_not_managed_by_facilitator',
      });
    }
    const timeoutMs = Math.min(requirement.maxTimeoutSeconds, maxTimeoutSeconds) * 1000;
    const paidCall = parsePaidCallUrl(requirement.resource ?? '');
    if (paidCall) {
      let sold: Awaited<ReturnType<typeof offers>>;
      try {
        sold = await offers(paidCall.resourceId, paidCall.methodName, paidCall.origin, { ledger, info });
      } catch (error) {
        if (error instanceof AppError && !(error instanceof PaymentError)) throw new PaymentError('INVALID_PAYMENT', error.message);
        throw error;
      }
      const offer =
        sold.accepts.find((candidate) => candidate.asset === requirement.asset && candidate.payTo === requirement.payTo) ??
        sold.accepts.find((candidate) => candidate.asset === requirement.asset && !candidate.extra.feePayer);
      if (!offer) throw new PaymentError('INVALID_PAYMENT', `resource ${paidCall.resourceId} is not sold for asset ${requirement.asset}`);
      return {
        terms: offer,
        sale: {
          agentOwnerId: sold.seller.userId,
          resource: offer.resource,
          resourceId: paidCall.resourceId,
          methodName: paidCall.methodName,
          amountUsd: sold.method.priceUsd,
          timeoutMs,
        },
      };
    }
    if (requirement.asset !== info.usdcMint && requirement.asset !== nativeSolMint)
      throw new PaymentError('INVALID_PAYMENT', `asset ${requirement.asset} is not supported: use ${info.usdcMint} (USDC) or ${nativeSolMint} (SOL)`);
    const sellerId = requirement.extra?.agentOwner?.userId;
    const seller = sellerId ? await resources.seller(sellerId) : undefined;
    // payTo the settlement account: the reference scheme, the owner paid out later; else the interface's split to the owner.
    const payout = requirement.payTo === info.platformWallet && requirement.asset === info.usdcMint;
    if (!seller || (!payout && seller.walletAddress !== requirement.payTo)) {
      throw new PaymentError('INVALID_PAYMENT', 'payTo must be the platform wallet (USDC) or the wallet of the platform user named in extra.agentOwner.userId');
    }
    const terms = {
      payTo: requirement.payTo,
      asset: requirement.asset,
      maxAmountRequired: (requirement.maxAmountRequired ?? requirement.amount)!,
      ...(payout && { extra: { feePayer: info.feePayer } }),
    };
    return {
      terms,
      sale: { agentOwnerId: seller.userId, resource: requirement.resource ?? '', resourceId: null, methodName: null, amountUsd: null, timeoutMs },
    };
  }

  /** The facilitator's verification: the rules, not yet settled, and the network would take it now. */
  async function verifyForFacilitator(input: FacilitatorInput) {
    const { ledger, info } = await ledgerWithInfo();
    const { terms, sale } = await facilitatorTerms(input.paymentRequirements, { ledger, info });
    const { verifyPayment } = await verification();
    const verified = await countersigned(verifyPayment(input.paymentPayload, [terms], info.network, info.platformWallet, deps.solPriceUsd));
    const existing = await store.get(verified.transaction.signature);
    if (existing && existing.settlementStatus !== 'failed') throw alreadySettled(existing, input.x402Version);
    return { ledger, info, verified, sale };
  }

  /** A reference-client payment gets the fee payer's signature once the rules passed; its id is that signature. */
  async function countersigned<T extends PaymentTerms>(verified: VerifiedPayment<T>): Promise<VerifiedPayment<T>> {
    if (!verified.feePayer) return verified;
    const signature = await (await deps.signers()).signAsFeePayer(messageBytes(verified.transaction));
    return { ...verified, transaction: withSignature(verified.transaction, verified.feePayer, signature) };
  }

  /** The network would take it now: checked before the platform's fee payer commits to a transaction it pays for. */
  async function simulated(ledger: SolanaLedger, verified: VerifiedPayment<PaymentTerms>): Promise<void> {
    const outcome = await ledger.simulate(verified.transaction.wire);
    if (!outcome.ok) {
      throw new PaymentError('SETTLEMENT_FAILED', `the network would reject the transaction: ${outcome.reason}`, {
        payer: verified.payer,
        ...(verified.feePayer && { reason: 'transaction_simulation_failed' }),
      });
    }
  }

  /** A payout-offer payment: the owner is paid out now if their owed sum crossed the threshold. Never fails the call. */
  async function payoutIfDue(payment: StoredPayment): Promise<void> {
    if (payment.settlement !== 'payout') return;
    try {
      if (await deps.payouts.isDue(payment.agentOwnerId, payment.asset)) await deps.requestPayout(payment.agentOwnerId, payment.asset);
    } catch (error) {
      logger.warn('payout not requested; the schedule will pay it', { txHash: payment.txHash, error: (error as Error).message });
    }
  }

  /** The marketplace's paid calls: every priced method (named as a paid-call URL can name it) of every published resource. */
  const listings = async (): Promise<Listing[]> =>
    (await resources.listed()).flatMap((resource) =>
      resource.methods.filter((method) => method.priceUsd > 0 && sellableMethodName.test(method.name)).map((method) => ({ resource, method })),
    );

  const settlementDeps = (ledger: SolanaLedger) => ({ store, payouts: deps.payoutStore, ledger, clock, metrics, recordRevenue: resources.recordRevenue });

  const networkOf = (input: FacilitatorInput) =>
    input.paymentPayload.x402Version === 2 ? input.paymentPayload.accepted.network : input.paymentPayload.network;

  return {
    listings,

    /** A page of the listings with their offers; one that cannot be sold now (its owner has no wallet) is left out. */
    async offeredListings(baseUrl: string, page: { limit: number; offset: number }) {
      const all = await listings();
      const ledger = await ledgerWithInfo();
      const offered = await Promise.all(
        all.slice(page.offset, page.offset + page.limit).map(async (listing) => {
          try {
            return { listing, accepts: (await offers(listing.resource.resourceId, listing.method.name, baseUrl, ledger)).accepts };
          } catch (error) {
            if (error instanceof ConflictError) return undefined;
            throw error;
          }
        }),
      );
      return { items: offered.filter((item) => item !== undefined), total: all.length };
    },

    async paidCall(request: PaidCallRequest): Promise<PaidCallOutcome> {
      const version = request.payment?.version ?? 1;
      const { ledger, info } = await ledgerWithInfo();
      const { resource, method, seller, accepts } = await offers(request.resourceId, request.methodName, request.baseUrl, { ledger, info });
      const listing = { resource, method };
      if (!request.payment) return { kind: 'payment-required', accepts, version, listing };
      const params = 'query' in request.params ? paramsFromQuery(method, request.params.query) : request.params.body;
      const deadline = clock.now() + maxTimeoutSeconds * 1000;
      const { verifyPayment } = await verification();
      let admission: Admission | undefined;
      try {
        const payload =
          'payload' in request.payment ? readPaymentPayload(request.payment.payload, '_meta["x402/payment"]') : decodePaymentHeader(request.payment.value);
        const verified = await countersigned(verifyPayment(payload, accepts, info.network, info.platformWallet, deps.solPriceUsd));
        resources.checkParams(method, params);
        if (verified.feePayer && !(await store.get(verified.transaction.signature))) await simulated(ledger, verified);
        admission = await request.admit?.({ resourceId: request.resourceId, methodName: request.methodName, amountUsd: method.priceUsd });
        if (admission?.kind === 'waiting') return { kind: 'waiting', waiting: admission.waiting, listing };
        const payment = await settleVerified(settlementDeps(ledger), verified, {
          agentOwnerId: seller.userId,
          resource: verified.offer.resource,
          resourceId: request.resourceId,
          methodName: request.methodName,
          amountUsd: method.priceUsd,
          network: info.network,
          x402Version: version,
          timeoutMs: deadline - clock.now(),
          ...(request.trigger && { trigger: request.trigger }),
        }).catch(async (error: unknown) => {
          if (admission?.kind === 'admitted') await admission.release();
          throw error;
        });
        const response = await resources.call({
          resourceId: request.resourceId,
          method: request.methodName,
          params,
          maxTimeoutMs: Math.max(1000, deadline - clock.now()),
        });
        await store.saveResponse(payment.txHash, response);
        await payoutIfDue(payment);
        return { kind: 'served', response, settlement: proofOf(payment, version), version, listing };
      } catch (error) {
        if (error instanceof PaymentError) return { kind: 'payment-required', accepts, version, listing, error };
        throw error;
      }
    },

    async verify(input: FacilitatorInput) {
      try {
        const { ledger, verified } = await verifyForFacilitator(input);
        if (!(await ledger.isBlockhashValid(verified.transaction.recentBlockhash)))
          throw new PaymentError('SETTLEMENT_FAILED', "the transaction's recent blockhash has expired", { payer: verified.payer });
        await simulated(ledger, verified);
        return { isValid: true, invalidReason: null, payer: verified.payer };
      } catch (error) {
        if (!(error instanceof PaymentError)) throw error;
        return {
          isValid: false,
          invalidReason: error.code,
          invalidMessage: error.message,
          payer: error.extras.payer ?? '',
          ...(error.extras.reason && { reason: error.extras.reason }),
        };
      }
    },

    async settle(input: FacilitatorInput) {
      const network = networkOf(input);
      try {
        const { ledger, info, verified, sale } = await verifyForFacilitator(input);
        if (verified.feePayer) await simulated(ledger, verified);
        const payment = await settleVerified(settlementDeps(ledger), verified, { ...sale, network: info.network, x402Version: input.x402Version });
        await payoutIfDue(payment);
        return { success: true, errorReason: null, transaction: payment.txHash, network, payer: payment.payer, blockHeight: payment.blockHeight! };
      } catch (error) {
        if (!(error instanceof PaymentError)) throw error;
        return {
          success: false,
          errorReason: error.code,
          errorMessage: error.message,
          transaction: error.extras.settlement?.transaction ?? '',
          network,
          payer: error.extras.payer ?? '',
          ...(error.extras.reason && { reason: error.extras.reason }),
        };
      }
    },

    /** Each kind names the fee payer, as reference clients and resource servers read it from a facilitator. */
    async supported() {
      const { info } = await ledgerWithInfo();
      const extra = { feePayer: info.feePayer };
      return {
        kinds: [
          { x402Version: 1, scheme: 'exact', network: info.network, extra },
          { x402Version: 2, scheme: 'exact', network: caip2Networks[info.network], extra },
        ],
        signers: { 'solana:*': [info.feePayer] },
      };
    },

    paymentSettings: async (caller: Caller) => ({ splitOfferOnly: await deps.payoutStore.splitOfferOnly(caller.userId) }),

    async updatePaymentSettings(caller: Caller, input: { splitOfferOnly: boolean }) {
      await deps.payoutStore.setSplitOfferOnly(caller.userId, input.splitOfferOnly, clock.nowIso());
      return { splitOfferOnly: input.splitOfferOnly };
    },

    payoutsOf: (caller: Caller, page: { limit: number; offset: number }) => deps.payouts.ofOwner(caller.userId, page),

    /** NOT_FOUND for another seller's payment as for a missing one. */
    async getPayment(caller: Caller, txHash: string): Promise<PaymentRecord> {
      const payment = await store.get(txHash);
      if (!payment || payment.agentOwnerId !== caller.userId) throw new NotFoundError('txHash', txHash, 'payment');
      return toRecord(payment);
    },

    /** The caller's own sales only: records are keyed by the seller. */
    async listPayments(caller: Caller, filter: { resourceId?: string; status?: SettlementStatus; limit: number; offset: number }) {
      const payments = (await store.listByOwner(caller.userId)).filter(
        (payment) => (!filter.resourceId || payment.resourceId === filter.resourceId) && (!filter.status || payment.settlementStatus === filter.status),
      );
      return {
        payments: payments.slice(filter.offset, filter.offset + filter.limit).map(toRecord),
        total: payments.length,
        limit: filter.limit,
        offset: filter.offset,
      };
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
