// One payout as a Solana transaction: the owner's summed shares, less the payout's cost, from the settlement account's
// token account to the owner's, the owner's account created when the payout pays for it, the fee payer paying fee and
// rent. Signed by both platform keys.
import { PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import {
  ACCOUNT_SIZE,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import bs58 from 'bs58';
import { programIds, usdcDecimals } from './networks.js';
import type { PlatformSigners } from './ports.js';

/** The fee of a payout transaction: two signatures (fee payer, settlement account) at 5,000 lamports, no priority fee. */
export const payoutFeeLamports = 10_000n;
/** The data of a token account, whose rent the fee payer puts up when a payout creates the owner's. */
export const tokenAccountBytes = ACCOUNT_SIZE;

/** The owner's associated token account of `asset`, where payouts land. */
export const ownerTokenAccount = (asset: string, walletAddress: string): string =>
  getAssociatedTokenAddressSync(new PublicKey(asset), new PublicKey(walletAddress), true).toBase58();

export interface PayoutOrder {
  batchId: string;
  asset: string;
  walletAddress: string;
  /** Atomic units the owner receives. */
  amount: bigint;
  /**
   * Whether the transaction creates the owner's token account (the payout was charged its rent). Without it, an account
   * closed since it was found fails the transfer instead of costing the fee payer a rent nobody paid.
   */
  createAccount: boolean;
  feePayer: string;
  settlementAccount: string;
  blockhash: string;
}

export async function signedPayout(order: PayoutOrder, signers: PlatformSigners): Promise<{ wire: Uint8Array; signature: string }> {
  const mint = new PublicKey(order.asset);
  const owner = new PublicKey(order.walletAddress);
  const feePayer = new PublicKey(order.feePayer);
  const settlement = new PublicKey(order.settlementAccount);
  const destination = getAssociatedTokenAddressSync(mint, owner, true);
  const instructions = [
    ...(order.createAccount ? [createAssociatedTokenAccountIdempotentInstruction(feePayer, destination, owner, mint)] : []),
    createTransferCheckedInstruction(getAssociatedTokenAddressSync(mint, settlement, true), mint, destination, settlement, order.amount, usdcDecimals),
    // The batch id on chain lets anyone reconcile a transfer with the ledger.
    new TransactionInstruction({ programId: new PublicKey(programIds.memo), keys: [], data: Buffer.from(`x402 payout ${order.batchId}`, 'utf8') }),
  ];
  const transaction = new VersionedTransaction(
    new TransactionMessage({ payerKey: feePayer, recentBlockhash: order.blockhash, instructions }).compileToV0Message(),
  );
  const message = transaction.message.serialize();
  const [feePayerSignature, settlementSignature] = await Promise.all([signers.signAsFeePayer(message), signers.signAsSettlement(message)]);
  transaction.signatures[0] = feePayerSignature;
  transaction.signatures[1] = settlementSignature;
  return { wire: transaction.serialize(), signature: bs58.encode(feePayerSignature) };
}
