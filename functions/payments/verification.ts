// Verification of a payment payload against what is offered: network, decoding, signatures, then the rules. Pure.
import { PaymentError } from './errors.js';
import { type SolanaNetwork, nativeSolMint, programIds } from './networks.js';
import { checkReferenceRules } from './reference-rules.js';
import { type PaymentTerms, type RuleVerdict, associatedTokenAddress, checkPaymentRules } from './rules.js';
import type { PaymentPayload } from './schemas.js';
import { type DecodedTransaction, MalformedTransactionError, decodeTransaction, hasValidSignatures } from './transaction.js';
import { decodeBase64, toNetwork } from './x402-codec.js';

export interface VerifiedPayment<T extends PaymentTerms> {
  transaction: DecodedTransaction;
  /** The offer the transaction pays. */
  offer: T;
  payer: string;
  paid: { agentOwnerAmount: bigint; serverFeeAmount: bigint };
  /** Set for a reference-client payment: the fee payer that still has to co-sign before it is submitted. */
  feePayer?: string;
}

/** The offer a payment means: v2 names it (asset and payTo); a v1 transaction shows it by its fee payer and accounts. */
function chosenOffer<T extends PaymentTerms>(payload: PaymentPayload, transaction: DecodedTransaction, offers: T[], platformWallet: string): T {
  if (payload.x402Version === 2) {
    const { asset, payTo } = payload.accepted;
    const named =
      offers.find((offer) => offer.asset === asset && (payTo === undefined || offer.payTo === payTo)) ?? offers.find((offer) => offer.asset === asset);
    if (named) return named;
  }
  const feePayer = transaction.signers[0];
  const reference = offers.find((offer) => offer.extra?.feePayer === feePayer);
  if (reference) return reference;
  const split = offers.filter((offer) => !offer.extra?.feePayer);
  return split.find((candidate) => touchesAsset(transaction, candidate, platformWallet)) ?? split[0] ?? offers[0]!;
}

/** Whether the transaction moves `offer.asset` at all: which of several offers the payer meant. */
function touchesAsset(transaction: DecodedTransaction, offer: PaymentTerms, platformWallet: string): boolean {
  if (offer.asset === nativeSolMint) return transaction.instructions.some((instruction) => instruction.programId === programIds.system);
  const accounts = [associatedTokenAddress(offer.payTo, offer.asset), associatedTokenAddress(platformWallet, offer.asset)];
  return transaction.instructions.some(
    (instruction) =>
      instruction.programId === programIds.token && instruction.accounts.some((account) => account === offer.asset || accounts.includes(account)),
  );
}

/**
 * Checks a payment payload against the offers of one resource (one per asset). Throws PaymentError with the interface's
 * code: NETWORK_MISMATCH, INVALID_PAYMENT (malformed, bad signature, forbidden instruction, a fee the platform's fee payer
 * would not pay), INSUFFICIENT_AMOUNT. `solPriceUsd` values the fee a reference payment asks the fee payer to pay.
 */
export function verifyPayment<T extends PaymentTerms>(
  payload: PaymentPayload,
  offers: T[],
  network: SolanaNetwork,
  platformWallet: string,
  solPriceUsd: number,
): VerifiedPayment<T> {
  const chosen = payload.x402Version === 2 ? payload.accepted : payload;
  if (chosen.scheme !== 'exact') throw new PaymentError('INVALID_PAYMENT', `scheme ${chosen.scheme} is not supported; use exact`);
  if (toNetwork(chosen.network) !== network)
    throw new PaymentError('NETWORK_MISMATCH', `this payment is for ${chosen.network}; this resource is paid on ${network}`);

  let transaction: DecodedTransaction;
  try {
    transaction = decodeTransaction(decodeBase64(payload.payload.transaction, 'payload.transaction'));
  } catch (error) {
    if (error instanceof MalformedTransactionError)
      throw new PaymentError('INVALID_PAYMENT', `payload.transaction is not a Solana transaction: ${error.message}`);
    throw error;
  }

  const offer = chosenOffer(payload, transaction, offers, platformWallet);
  const feePayer = offer.extra?.feePayer;
  if (!feePayer && !hasValidSignatures(transaction))
    throw new PaymentError('INVALID_PAYMENT', 'a required signature of the transaction does not verify', { payer: transaction.signers[0] });
  const verdict: RuleVerdict & { reason?: string } = feePayer
    ? checkReferenceRules(transaction, { ...offer, feePayer, solPriceUsd })
    : checkPaymentRules(transaction, offer, platformWallet);
  if (!verdict.ok) throw new PaymentError(verdict.code, verdict.message, { payer: verdict.payer, reason: verdict.reason });
  // The fee payer's slot is still empty in a reference payment: the platform signs it only after these checks.
  if (feePayer && !hasValidSignatures(transaction, feePayer)) {
    throw new PaymentError('INVALID_PAYMENT', 'a required signature of the transaction does not verify', {
      payer: verdict.payer,
      reason: feePayer && 'invalid_exact_svm_payload_transaction_signature',
    });
  }
  return { transaction, offer, payer: verdict.payer, paid: verdict.paid, ...(feePayer && { feePayer }) };
}
