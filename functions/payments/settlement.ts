// Settling a verified payment exactly once: replay check, blockhash, the conditional claim, submission, the record.
import type { Clock } from '#platform/clock.js';
import type { MetricsPort } from '#platform/ports.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { logger } from '#platform/logger.js';
import { PaymentError, type SettlementProof } from './errors.js';
import type { Landed, Settlement, SolanaLedger } from './ports.js';
import type { PaymentTerms } from './rules.js';
import type { PayoutStore } from './payout-store.js';
import type { PaymentTrigger } from './schemas.js';
import type { PaymentStore, StoredPayment } from './store.js';
import type { VerifiedPayment } from './verification.js';
import { type SolanaNetwork, type X402Version, networkName } from './networks.js';

export interface SettlementDeps {
  store: PaymentStore;
  /** Records the owner's share of a payout-offer payment as owed, together with its confirmation. */
  payouts: Pick<PayoutStore, 'confirmOwed'>;
  ledger: SolanaLedger;
  clock: Clock;
  metrics: MetricsPort;
  recordRevenue(resourceId: string, amountUsd: number): Promise<void>;
}

/** What the record says beyond the transaction: whose sale, of what. */
export interface SaleContext {
  agentOwnerId: string;
  resource: string;
  resourceId: string | null;
  methodName: string | null;
  amountUsd: number | null;
  network: SolanaNetwork;
  x402Version: X402Version;
  timeoutMs: number;
  trigger?: PaymentTrigger;
}

export const proofOf = (payment: StoredPayment, version: X402Version): SettlementProof => ({
  success: payment.settlementStatus === 'confirmed',
  transaction: payment.txHash,
  blockHeight: payment.blockHeight,
  network: networkName(payment.network as SolanaNetwork, version),
  payer: payment.payer,
});

export function alreadySettled(existing: StoredPayment, version: X402Version): PaymentError {
  const done = existing.settlementStatus === 'confirmed';
  return new PaymentError(
    'ALREADY_SETTLED',
    done
      ? `transaction ${existing.txHash} already paid for a call${existing.response ? '; its response is in earlierResponse' : ''}`
      : `transaction ${existing.txHash} is being settled by another request`,
    {
      payer: existing.payer,
      ...(done && { settlement: proofOf(existing, version) }),
      ...(done && existing.response && { earlierResponse: existing.response }),
    },
  );
}

/**
 * Moves a pending payment to where the network says it ended. The move is conditional, so of several requests
 * concluding the same payment one wins (and counts the revenue); the others get ALREADY_SETTLED.
 */
async function conclude(deps: SettlementDeps, payment: StoredPayment, outcome: Landed, version: X402Version): Promise<StoredPayment> {
  const { txHash } = payment;
  const concluded: StoredPayment =
    outcome.status === 'failed'
      ? { ...payment, settlementStatus: 'failed', failureReason: outcome.reason }
      : { ...payment, settlementStatus: 'confirmed', blockHeight: outcome.blockHeight, confirmedAt: deps.clock.nowIso() };
  if (outcome.status === 'confirmed' && payment.settlement === 'payout') {
    const owed = {
      txHash,
      ownerId: payment.agentOwnerId,
      asset: payment.asset,
      amount: payment.agentOwnerAmount,
      payoutStatus: 'owed' as const,
      owedOwner: payment.agentOwnerId,
      createdAt: concluded.confirmedAt!,
      attempts: 0,
    };
    if (!(await deps.payouts.confirmOwed(txHash, { blockHeight: outcome.blockHeight, confirmedAt: concluded.confirmedAt! }, owed))) {
      throw alreadySettled((await deps.store.get(txHash)) ?? payment, version);
    }
  } else {
    try {
      await deps.store.settle(
        txHash,
        outcome.status === 'failed'
          ? { settlementStatus: 'failed', failureReason: outcome.reason }
          : { settlementStatus: 'confirmed', blockHeight: outcome.blockHeight, confirmedAt: concluded.confirmedAt! },
      );
    } catch (error) {
      if (isConditionFailure(error)) throw alreadySettled((await deps.store.get(txHash)) ?? payment, version);
      throw error;
    }
  }
  if (outcome.status === 'failed') {
    throw new PaymentError('SETTLEMENT_FAILED', `the network rejected transaction ${txHash}: ${outcome.reason}`, {
      payer: payment.payer,
      settlement: proofOf(concluded, version),
    });
  }
  deps.metrics.record('PaymentsSettled', 'Count', 1, { network: payment.network });
  const { resourceId, amountUsd } = payment;
  if (resourceId && amountUsd) {
    // The payment stands whatever happens to the counter; a missing resource is logged, not charged back.
    await deps
      .recordRevenue(resourceId, amountUsd)
      .catch((error: unknown) => logger.warn('revenue not recorded', { txHash, resourceId, error: String(error) }));
  }
  return concluded;
}

/**
 * Submits the payment and waits for its confirmation. The transaction hash is claimed with a conditional write before
 * anything is sent, so of two requests carrying the same transaction only one submits it; the other, and every later
 * replay, gets ALREADY_SETTLED. A payment left pending by a timeout is concluded by the next request carrying it.
 */
export async function settleVerified(deps: SettlementDeps, verified: VerifiedPayment<PaymentTerms>, sale: SaleContext): Promise<StoredPayment> {
  const { transaction } = verified;
  const txHash = transaction.signature;
  const [existing, fresh] = await Promise.all([deps.store.get(txHash), deps.ledger.isBlockhashValid(transaction.recentBlockhash)]);
  if (existing?.settlementStatus === 'pending' && Date.parse(existing.timestamp) + sale.timeoutMs < deps.clock.now()) {
    const landed = await deps.ledger.status(txHash);
    if (landed) return conclude(deps, existing, landed, sale.x402Version);
    if (!fresh) return conclude(deps, existing, { status: 'failed', reason: 'BlockhashNotFound: expired before it landed' }, sale.x402Version);
  }
  // A replay is ALREADY_SETTLED even once its blockhash has expired.
  if (existing && existing.settlementStatus !== 'failed') throw alreadySettled(existing, sale.x402Version);
  if (!fresh) {
    throw new PaymentError(
      'SETTLEMENT_FAILED',
      "the transaction's recent blockhash has expired, so the network would reject it: build and sign the payment again",
      { payer: verified.payer },
    );
  }

  const total = verified.paid.agentOwnerAmount + verified.paid.serverFeeAmount;
  const payment: StoredPayment = {
    txHash,
    agentOwnerId: sale.agentOwnerId,
    network: sale.network,
    totalAmount: total.toString(),
    agentOwnerAmount: verified.paid.agentOwnerAmount.toString(),
    serverFeeAmount: verified.paid.serverFeeAmount.toString(),
    asset: verified.offer.asset,
    resource: sale.resource,
    resourceId: sale.resourceId,
    methodName: sale.methodName,
    payer: verified.payer,
    amountUsd: sale.amountUsd,
    timestamp: deps.clock.nowIso(),
    settlementStatus: 'pending',
    blockHeight: null,
    failureReason: null,
    settlement: verified.feePayer ? 'payout' : 'split',
    x402Version: sale.x402Version,
    ...(sale.trigger && { trigger: sale.trigger }),
  };
  if (!(await deps.store.claim(payment))) throw alreadySettled((await deps.store.get(txHash)) ?? payment, sale.x402Version);

  const outcome = await deps.ledger.settle(transaction.wire, txHash, sale.timeoutMs).catch((error: unknown): Settlement => {
    // An RPC that fails (refused, reset, 5xx) may have taken the transaction before failing: as unknown as a timeout.
    logger.warn('the ledger failed while settling', { txHash, error: error instanceof Error ? error.message : String(error) });
    return { status: 'timeout' };
  });
  if (outcome.status === 'timeout') {
    // It may still land: the record stays pending, so the same transaction is never accepted twice.
    throw new PaymentError(
      'SETTLEMENT_FAILED',
      `transaction ${txHash} was not confirmed within ${Math.round(sale.timeoutMs / 1000)} s; it may still land: send the same payment again later to learn how it ended`,
      {
        payer: verified.payer,
      },
    );
  }
  return conclude(deps, payment, outcome, sale.x402Version);
}
