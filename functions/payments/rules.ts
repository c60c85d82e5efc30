// The payment rules of the `exact` scheme with the 90/10 split, on a decoded transaction. Pure: no I/O.
import { PublicKey } from '@solana/web3.js';
import { nativeSolMint, programIds, splitAmount } from './networks.js';
import type { PaymentRequirement } from './schemas.js';
import type { DecodedInstruction, DecodedTransaction } from './transaction.js';

/**
 * What a transaction is checked against: who is paid, in what, how much. `extra.feePayer` marks the offer reference
 * clients pay (the full price to the settlement account, the platform paying the fees); without it, the interface's split.
 */
export type PaymentTerms = Pick<PaymentRequirement, 'payTo' | 'asset' | 'maxAmountRequired'> & { extra?: { feePayer?: string } };

export type PaymentErrorCode = 'INVALID_PAYMENT' | 'INSUFFICIENT_AMOUNT' | 'ALREADY_SETTLED' | 'SETTLEMENT_FAILED' | 'NETWORK_MISMATCH';

export type RuleVerdict =
  | { ok: true; payer: string; paid: { agentOwnerAmount: bigint; serverFeeAmount: bigint } }
  | { ok: false; code: PaymentErrorCode; message: string; payer: string };

/** The reference facilitator's cap (5 lamports per compute unit): the payer pays, but a typo should not drain them. */
export const maxComputeUnitPriceMicroLamports = 5_000_000n;
/** Twice what two ATA creations and two transfers use. */
export const maxComputeUnitLimit = 400_000;
/** The reference facilitator's memo cap. */
const maxMemoBytes = 256;

const ataCache = new Map<string, string>();
const ataCacheSize = 10_000;

/** ATA(owner, mint) under the classic token program, cached: the derivation costs a few hundred microseconds. */
export function associatedTokenAddress(owner: string, mint: string): string {
  const key = `${owner}:${mint}`;
  const cached = ataCache.get(key);
  if (cached) return cached;
  const [pda] = PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), new PublicKey(programIds.token).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(programIds.associatedToken),
  );
  if (ataCache.size >= ataCacheSize) ataCache.delete(ataCache.keys().next().value!);
  ataCache.set(key, pda.toBase58());
  return pda.toBase58();
}

interface Transfer {
  /** The token mint when the instruction names it; always the native mint for System transfers. */
  mint?: string;
  source: string;
  destination: string;
  authority: string;
  amount: bigint;
}

class RuleBreak extends Error {}

const u64 = (data: Uint8Array, offset: number) => new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
const u32 = (data: Uint8Array, offset: number) => new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);

function accountsAt(instruction: DecodedInstruction, count: number, what: string): string[] {
  if (instruction.accounts.length < count) throw new RuleBreak(`${what} names ${instruction.accounts.length} accounts, needs ${count}`);
  return instruction.accounts;
}

/** Reads one instruction against the allow-list; returns the transfer it makes, if any. */
function readInstruction(instruction: DecodedInstruction, requirement: PaymentTerms, seen: Set<string>, platformWallet: string): Transfer | undefined {
  const { programId, data } = instruction;
  const once = (kind: string) => {
    if (seen.has(kind)) throw new RuleBreak(`${kind} appears twice`);
    seen.add(kind);
  };
  if (programId === programIds.computeBudget) {
    if (data[0] === 2 && data.length === 5) {
      once('SetComputeUnitLimit');
      if (u32(data, 1) > maxComputeUnitLimit) throw new RuleBreak(`compute unit limit above ${maxComputeUnitLimit}`);
      return undefined;
    }
    if (data[0] === 3 && data.length === 9) {
      once('SetComputeUnitPrice');
      if (u64(data, 1) > maxComputeUnitPriceMicroLamports) throw new RuleBreak(`compute unit price above ${maxComputeUnitPriceMicroLamports} micro-lamports`);
      return undefined;
    }
    throw new RuleBreak('only SetComputeUnitLimit and SetComputeUnitPrice are allowed from the compute budget program');
  }
  if (programId === programIds.memo || programId === programIds.memoV1) {
    if (data.length > maxMemoBytes) throw new RuleBreak(`memo longer than ${maxMemoBytes} bytes`);
    return undefined;
  }
  if (programId === programIds.associatedToken) {
    const [, , wallet] = accountsAt(instruction, 6, 'CreateIdempotent');
    if (data.length !== 1 || data[0] !== 1) throw new RuleBreak('only CreateIdempotent is allowed from the associated token program');
    // The payer pays the rent; a wrong mint shows up as an unpaid amount below.
    if (wallet !== requirement.payTo && wallet !== platformWallet) throw new RuleBreak('a token account may be created only for payTo or the platform wallet');
    return undefined;
  }
  if (programId === programIds.token) {
    if (data[0] === 12 && data.length === 10) {
      const [source, mint, destination, authority] = accountsAt(instruction, 4, 'TransferChecked');
      return { mint: mint!, source: source!, destination: destination!, authority: authority!, amount: u64(data, 1) };
    }
    if (data[0] === 3 && data.length === 9) {
      const [source, destination, authority] = accountsAt(instruction, 3, 'Transfer');
      return { source: source!, destination: destination!, authority: authority!, amount: u64(data, 1) };
    }
    throw new RuleBreak('only Transfer and TransferChecked are allowed from the token program');
  }
  if (programId === programIds.system) {
    if (data.length === 12 && u32(data, 0) === 2) {
      const [source, destination] = accountsAt(instruction, 2, 'System transfer');
      return { mint: nativeSolMint, source: source!, destination: destination!, authority: source!, amount: u64(data, 4) };
    }
    throw new RuleBreak('only Transfer is allowed from the system program');
  }
  throw new RuleBreak(`program ${programId} is not allowed in a payment`);
}

/**
 * Checks a signature-verified transaction against one requirement: allow-listed instructions only, the platform
 * wallet never signing nor paying, and at least the required amount of the asset split at least 90/10.
 */
export function checkPaymentRules(transaction: DecodedTransaction, requirement: PaymentTerms, platformWallet: string): RuleVerdict {
  const feePayer = transaction.signers[0]!;
  const fail = (code: PaymentErrorCode, message: string, payer = feePayer): RuleVerdict => ({ ok: false, code, message, payer });
  if (transaction.signers.includes(platformWallet)) return fail('INVALID_PAYMENT', 'the platform wallet must not sign a payment nor pay its fees');

  const transfers: Transfer[] = [];
  const seen = new Set<string>();
  try {
    for (const instruction of transaction.instructions) {
      const transfer = readInstruction(instruction, requirement, seen, platformWallet);
      if (transfer) transfers.push(transfer);
    }
  } catch (error) {
    if (error instanceof RuleBreak) return fail('INVALID_PAYMENT', error.message);
    throw error;
  }

  const native = requirement.asset === nativeSolMint;
  const ownerAccount = native ? requirement.payTo : associatedTokenAddress(requirement.payTo, requirement.asset);
  const platformAccounts = native ? [platformWallet] : [platformWallet, associatedTokenAddress(platformWallet, requirement.asset)];
  const platformAccount = platformAccounts.at(-1)!;
  if (transfers.some((transfer) => platformAccounts.includes(transfer.source) || transfer.authority === platformWallet)) {
    return fail('INVALID_PAYMENT', 'a payment must never move funds out of the platform wallet');
  }

  // A plain token Transfer names no mint; landing in ATA(recipient, asset) proves the asset, as that account holds only it.
  const inAsset = (transfer: Transfer) => (native ? transfer.mint === nativeSolMint : transfer.mint === undefined || transfer.mint === requirement.asset);
  const paidTo = (account: string) =>
    transfers.filter((transfer) => inAsset(transfer) && transfer.destination === account).reduce((sum, transfer) => sum + transfer.amount, 0n);
  const paid = { agentOwnerAmount: paidTo(ownerAccount), serverFeeAmount: paidTo(platformAccount) };
  const counted = transfers.filter((transfer) => inAsset(transfer) && (transfer.destination === ownerAccount || transfer.destination === platformAccount));
  const payer = counted[0]?.authority ?? feePayer;

  const due = splitAmount(BigInt(requirement.maxAmountRequired));
  if (paid.agentOwnerAmount < due.agentOwnerAmount || paid.serverFeeAmount < due.serverFeeAmount) {
    return fail(
      'INSUFFICIENT_AMOUNT',
      `${requirement.maxAmountRequired} atomic units of ${requirement.asset} are due: at least ${due.agentOwnerAmount} to payTo and ` +
        `${due.serverFeeAmount} to the platform; this transaction pays ${paid.agentOwnerAmount} and ${paid.serverFeeAmount}`,
      payer,
    );
  }
  if (counted.length !== transfers.length)
    return fail('INVALID_PAYMENT', 'a payment may only transfer the required asset to payTo and the platform wallet', payer);
  return { ok: true, payer, paid };
}
