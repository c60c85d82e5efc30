// The reference x402 facilitator's rules for the `exact` scheme on Solana, for the offer that unmodified reference
// clients pay: the full price to the settlement account, the platform's fee payer paying the fees. Pure: no I/O.
// Each refusal carries the reference facilitator's reason next to the interface's code.
import { PublicKey } from '@solana/web3.js';
import { programIds, splitAmount, usdcDecimals } from './networks.js';
import { type PaymentErrorCode, type RuleVerdict, maxComputeUnitPriceMicroLamports } from './rules.js';
import type { DecodedInstruction, DecodedTransaction } from './transaction.js';

/** What a reference payment is checked against. */
export interface ReferenceTerms {
  payTo: string;
  asset: string;
  maxAmountRequired: string;
  feePayer: string;
  /** USD per SOL: what the fee payer's lamports are worth against the amount paid (USDC, 1:1 with USD). */
  solPriceUsd: number;
}

/** The network's base fee per signature. */
const lamportsPerSignature = 5_000n;
/**
 * The unit limit a reference payment may ask the fee payer to pay for: @x402/svm asks 20,000 units, x402-fetch what a
 * simulation used (a few thousand); a TransferChecked with Lighthouse assertions stays far below Solana's 200,000 default.
 */
const maxReferenceComputeUnitLimit = 200_000;
/** The most the fee payer spends on one payment: two signatures and up to 10,000 lamports of priority fee. */
export const maxReferenceFeeLamports = 20_000n;

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
  const [pda] = PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), new PublicKey(tokenProgram).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(programIds.associatedToken),
  );
  return pda.toBase58();
}

/** What the fee payer commits to by co-signing: every signature's base fee and the priority fee of the whole unit limit. */
function referenceFeeLamports(signatures: number, unitLimit: number, unitPriceMicroLamports: bigint): bigint {
  return BigInt(signatures) * lamportsPerSignature + (BigInt(unitLimit) * unitPriceMicroLamports + 999_999n) / 1_000_000n;
}

/** Lamports worth `amount` micro-USDC at `solPriceUsd`, rounded down: the fee an amount covers. */
const lamportsWorth = (amount: bigint, solPriceUsd: number) => (amount * 10n ** 9n) / BigInt(Math.round(solPriceUsd * 10 ** usdcDecimals));

/**
 * The fee payer pays the fee of the transaction it co-signs, so the fee must stay small whatever the payer asked for
 * (compute budget, signatures), and the payment must be worth at least that fee.
 */
function checkFee(transaction: DecodedTransaction, limit: DecodedInstruction, price: DecodedInstruction, terms: ReferenceTerms, amount: bigint): void {
  const unitLimit = new DataView(limit.data.buffer, limit.data.byteOffset, limit.data.byteLength).getUint32(1, true);
  if (unitLimit > maxReferenceComputeUnitLimit) {
    refuse(
      'transaction_instructions_compute_limit_instruction_too_high',
      `the compute unit limit ${unitLimit} is above ${maxReferenceComputeUnitLimit}: the platform's fee payer pays for it`,
    );
  }
  const fee = referenceFeeLamports(transaction.signers.length, unitLimit, u64(price.data, 1));
  if (fee > maxReferenceFeeLamports) {
    refuse(
      'transaction_fee_too_high',
      `the transaction's fee is ${fee} lamports (signatures and compute unit limit x price); the platform's fee payer pays at most ${maxReferenceFeeLamports}`,
    );
  }
  if (lamportsWorth(amount, terms.solPriceUsd) < fee) {
    refuse(
      'amount_below_fee',
      `${amount} atomic units do not cover the ${fee} lamports of fee the platform's fee payer would pay; pay the split offer instead`,
      'INSUFFICIENT_AMOUNT',
    );
  }
}

function checkComputeBudget(limit: DecodedInstruction, price: DecodedInstruction): void {
  if (limit.programId !== programIds.computeBudget || limit.data[0] !== 2 || limit.data.length !== 5) {
    refuse('transaction_instructions_compute_limit_instruction', "the first instruction must be the compute budget's SetComputeUnitLimit");
  }
  if (price.programId !== programIds.computeBudget || price.data[0] !== 3 || price.data.length !== 9) {
    refuse('transaction_instructions_compute_price_instruction', "the second instruction must be the compute budget's SetComputeUnitPrice");
  }
  if (u64(price.data, 1) > maxComputeUnitPriceMicroLamports) {
    refuse(
      'transaction_instructions_compute_price_instruction_too_high',
      `the compute unit price is above ${maxComputeUnitPriceMicroLamports} micro-lamports (5 lamports)`,
    );
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
 * as its specification asks: the fee payer pays the fees (first signer) and is named by no instruction; stricter still,
 * its fee is capped (unit limit, total) and covered by the amount.
 */
export function checkReferenceRules(transaction: DecodedTransaction, terms: ReferenceTerms): RuleVerdict & { reason?: string } {
  const { instructions } = transaction;
  let payer = '';
  try {
    if (transaction.signers[0] !== terms.feePayer)
      refuse('fee_payer_mismatch', `the transaction's fee payer must be ${terms.feePayer}, as the offer's extra.feePayer says`);
    if (instructions.length < 3 || instructions.length > 6)
      refuse('transaction_instructions_length', `a payment has 3 to 6 instructions, not ${instructions.length}`);
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
      refuse(
        'amount_mismatch',
        `the transfer must be of exactly ${required} atomic units, not ${transfer.amount}`,
        transfer.amount < required ? 'INSUFFICIENT_AMOUNT' : 'INVALID_PAYMENT',
      );
    }
    checkFee(transaction, instructions[0]!, instructions[1]!, terms, transfer.amount);
    instructions.slice(3).forEach((instruction, index) => {
      if (instruction.programId !== lighthouseProgram && instruction.programId !== programIds.memo) {
        refuse(
          optionalInstructionReasons[index]!,
          `instruction ${index + 4} may only be a Lighthouse or Memo instruction, not one of ${instruction.programId}`,
        );
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
