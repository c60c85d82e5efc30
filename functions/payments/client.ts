// Paying for a call: turns a 402 body into a signed split payment header. Pure (no network I/O): the caller brings a
// recent blockhash (e.g. `connection.getLatestBlockhash()`) and a signer.
//
//   const required = await fetch(url);                          // 402
//   const offer = selectOffer(await required.json(), 'USDC');
//   const { blockhash } = await connection.getLatestBlockhash();
//   const paid = await fetch(url, { headers: { 'X-PAYMENT': createPaymentHeader(offer, payer, blockhash) } });
//   decodePaymentResponse(paid.headers.get('X-PAYMENT-RESPONSE')!);  // { success, transaction, blockHeight, network }
import { randomBytes } from 'node:crypto';
import {
  ComputeBudgetProgram,
  type Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { SettlementProof } from './errors.js';
import { type X402Version, nativeSolMint, programIds, splitAmount } from './networks.js';
import { resourceInfo, toV2Requirement } from './requirements.js';
import type { PaymentRequirement } from './schemas.js';

/**
 * The split offer of a 402 body in `asset` ('USDC', 'SOL', or a mint address): this helper pays the owner directly,
 * so it skips the payout offer that reference clients, which cannot build the split, take first.
 */
export function selectOffer(body: { accepts: PaymentRequirement[] }, asset = 'USDC'): PaymentRequirement {
  const offer = body.accepts.find((candidate) => candidate.extra.settlement !== 'payout' && (candidate.extra.symbol === asset || candidate.asset === asset));
  if (!offer) throw new Error(`no offer in ${asset}; offered: ${body.accepts.map((candidate) => candidate.extra.symbol).join(', ')}`);
  return offer;
}

export interface PaymentOptions {
  /** Makes two payments with the same terms distinct transactions; random by default, as x402 asks. */
  memo?: string;
  computeUnitLimit?: number;
  computeUnitPriceMicroLamports?: number;
}

/** Two transfers in one transaction: 90% to payTo, 10% to the platform wallet, in the offer's asset. */
export function paymentInstructions(offer: PaymentRequirement, payer: PublicKey, options: PaymentOptions = {}): TransactionInstruction[] {
  const { agentOwnerAmount, serverFeeAmount } = splitAmount(BigInt(offer.maxAmountRequired));
  const owner = new PublicKey(offer.payTo);
  const platform = new PublicKey(offer.extra.serverWalletAddress);
  const instructions: TransactionInstruction[] = [];
  if (options.computeUnitLimit !== undefined) instructions.push(ComputeBudgetProgram.setComputeUnitLimit({ units: options.computeUnitLimit }));
  if (options.computeUnitPriceMicroLamports !== undefined)
    instructions.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: options.computeUnitPriceMicroLamports }));
  const shares = [
    { to: owner, amount: agentOwnerAmount },
    { to: platform, amount: serverFeeAmount },
  ].filter((share) => share.amount > 0n);
  if (offer.asset === nativeSolMint) {
    for (const share of shares) instructions.push(SystemProgram.transfer({ fromPubkey: payer, toPubkey: share.to, lamports: share.amount }));
  } else {
    const mint = new PublicKey(offer.asset);
    const source = getAssociatedTokenAddressSync(mint, payer, true);
    for (const share of shares) {
      // Idempotent: a no-op when the account exists, so a first sale to a new wallet still settles.
      const destination = getAssociatedTokenAddressSync(mint, share.to, true);
      instructions.push(createAssociatedTokenAccountIdempotentInstruction(payer, destination, share.to, mint));
      instructions.push(createTransferCheckedInstruction(source, mint, destination, payer, share.amount, offer.extra.decimals));
    }
  }
  const memo = options.memo ?? randomBytes(16).toString('hex');
  instructions.push(new TransactionInstruction({ programId: new PublicKey(programIds.memo), keys: [], data: Buffer.from(memo, 'utf8') }));
  return instructions;
}

/** The unsigned payment, for a wallet to sign. */
export function paymentTransaction(offer: PaymentRequirement, payer: PublicKey, recentBlockhash: string, options: PaymentOptions = {}): VersionedTransaction {
  const message = new TransactionMessage({ payerKey: payer, recentBlockhash, instructions: paymentInstructions(offer, payer, options) }).compileToV0Message();
  return new VersionedTransaction(message);
}

/** The header value for a signed payment: base64 JSON of x402's payment payload, v1 (X-PAYMENT) or v2 (PAYMENT-SIGNATURE). */
export function encodePaymentHeader(transaction: VersionedTransaction, offer: PaymentRequirement, version: X402Version = 1): string {
  const payload = { transaction: Buffer.from(transaction.serialize()).toString('base64') };
  const body =
    version === 2
      ? { x402Version: 2, resource: resourceInfo(offer), accepted: toV2Requirement(offer), payload }
      : { x402Version: 1, scheme: offer.scheme, network: offer.network, payload };
  return Buffer.from(JSON.stringify(body)).toString('base64');
}

/** Builds, signs with `payer` and encodes the payment for `offer`. */
export function createPaymentHeader(
  offer: PaymentRequirement,
  payer: Keypair,
  recentBlockhash: string,
  options: PaymentOptions & { version?: X402Version } = {},
): string {
  const transaction = paymentTransaction(offer, payer.publicKey, recentBlockhash, options);
  transaction.sign([payer]);
  return encodePaymentHeader(transaction, offer, options.version);
}

/** X-PAYMENT-RESPONSE / PAYMENT-RESPONSE: base64 JSON `{success, transaction, blockHeight, network, payer}`. */
export const decodePaymentResponse = (header: string): SettlementProof => JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as SettlementProof;
