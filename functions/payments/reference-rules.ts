// The reference x402 facilitator's rules for the `exact` scheme on Solana, for the offer that unmodified reference
// clients pay: the full price to the settlement account, the platform's fee payer paying the fees. Pure: no I/O.
// Each refusal carries the reference facilitator's reason next to the interface's code.
import { PublicKey } from '@solana/web3.js';
import { programIds, splitAmount } from './networks.js';
import { type PaymentErrorCode, type RuleVerdict, maxComputeUnitPriceMicroLamports } from './rules.js';
import type { DecodedInstruction, DecodedTransaction } from './transaction.js';

/** What a reference payment is checked against. */
export interface ReferenceTerms {
  payTo: string;
  asset: string;
  maxAmountRequired: string;
  feePayer: string;
}

export const token2022Program = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** Phantom and Solflare add Lighthouse assertions to protect their users; the reference facilitator allows them. */
export const lighthouseProgram = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95';

const optionalInstructionReasons = ['unknown_fourth_instruction', 'unknown_fifth_instruction', 'unknown_sixth_instruction'];

class Refusal {
  constructor(
    readonly reason: string,
    readonly message: string,
    readonly code: PaymentErrorCode = 'INVALID_PAYMENT',
  ) {}
}

const refuse = (reason: string, message: string, code?: PaymentErrorCode): never => {
  throw new Refusal(`invalid_exact_svm_payload_${reason}`, message, code);
};

const u64 = (data: Uint8Array, offset: number) => new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);

function associatedTokenAddressUnder(owner: string, mint: string, tokenProgram: string): string {
  const [pda] = PublicKey.findProgramAddressSync([new PublicKey(owner).toBuffer(), new PublicKey(tokenProgram).toBuffer(), new PublicKey(mint).toBuffer()], new PublicKey(programIds.associatedToken));
  return pda.toBase58();
}

function checkComputeBudget(limit: DecodedInstruction, price: DecodedInstruction): void {
  if (limit.programId !== programIds.computeBudget || limit.data[0] !== 2 || limit.data.length !== 5) {
    refuse('transaction_instructions_compute_limit_instruction', 'the first instruction must be the compute budget\'s SetComputeUnitLimit');
  }
  if (price.programId !== programIds.computeBudget || price.data[0] !== 3 || price.data.length !== 9) {
    refuse('transaction_instructions_compute_price_instruction', 'the second instruction must be the compute budget\'s SetComputeUnitPrice');
  }
  if (u64(price.data, 1) > maxComputeUnitPriceMicroLamports) {
    refuse('transaction_instructions_compute_price_instruction_too_high', `the compute unit price is above ${maxComputeUnitPriceMicroLamports} micro-lamports (5 lamports)`);
  }
}

/** The TransferChecked of the third instruction: [source, mint, destination, authority], amount and decimals. */
function readTransfer(instruction: DecodedInstruction) {
  const { programId, data, accounts } = instruction;
  if ((programId !== programIds.token && programId !== token2022Program) || data[0] !== 12 || data.length !== 10 || accounts.length < 4) {
    refuse('no_transfer_instruction', 'the third instruction must be a TransferChecked of the SPL Token or Token-2022 program');
  }
  const [source, mint, destination, authority] = accounts as [string, string, string, string];
  return { programId, source, mint, destination, authority, amount: u64(data, 1) };
}

/**
 * The reference facilitator's checks, in its order: 3 to 6 instructions (compute limit, compute price at most 5
 * lamports per unit, one TransferChecked, then only Lighthouse or Memo), the transfer's authority not the fee payer,
 * the asset's mint, the destination ATA(payTo, asset) under the transfer's token program, the exact amount. Stricter,
 * as its specification asks: the fee payer pays the fees (first signer) and is named by no instruction.
 */
export function checkReferenceRules(transaction: DecodedTransaction, terms: ReferenceTerms): RuleVerdict & { reason?: string } {
  const { instructions } = transaction;
  let payer = '';
  try {
    if (transaction.signers[0] !== terms.feePayer) refuse('fee_payer_mismatch', `the transaction's fee payer must be ${terms.feePayer}, as the offer's extra.feePayer says`);
    if (instructions.length < 3 || instructions.length > 6) refuse('transaction_instructions_length', `a payment has 3 to 6 instructions, not ${instructions.length}`);
    checkComputeBudget(instructions[0]!, instructions[1]!);
    const transfer = readTransfer(instructions[2]!);
    payer = transfer.authority;
    if (transfer.authority === terms.feePayer) refuse('transaction_fee_payer_transferring_funds', 'the fee payer must not transfer its own funds');
    if (transfer.mint !== terms.asset) refuse('mint_mismatch', `the transfer must be of mint ${terms.asset}, not ${transfer.mint}`);
    if (transfer.destination !== associatedTokenAddressUnder(terms.payTo, terms.asset, transfer.programId)) {
      refuse('recipient_mismatch', `the transfer must go to the associated token account of ${terms.payTo}`);
    }
    const required = BigInt(terms.maxAmountRequired);
    if (transfer.amount !== required) {
      refuse('amount_mismatch', `the transfer must be of exactly ${required} atomic units, not ${transfer.amount}`, transfer.amount < required ? 'INSUFFICIENT_AMOUNT' : 'INVALID_PAYMENT');
    }
    instructions.slice(3).forEach((instruction, index) => {
      if (instruction.programId !== lighthouseProgram && instruction.programId !== programIds.memo) {
        refuse(optionalInstructionReasons[index]!, `instruction ${index + 4} may only be a Lighthouse or Memo instruction, not one of ${instruction.programId}`);
      }
    });
    if (instructions.some((instruction) => instruction.accounts.includes(terms.feePayer))) {
      refuse('transaction_fee_payer_included_in_instruction_accounts', 'the fee payer must not be an account of any instruction');
    }
    return { ok: true, payer, paid: splitAmount(required) };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { ok: false, code: error.code, message: error.message, payer, reason: error.reason };
  }
}
