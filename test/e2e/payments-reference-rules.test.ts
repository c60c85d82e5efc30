// The reference facilitator's exact-SVM rules on the payout offer: every refusal answers 402 with the interface's code and
// the reference reason, and moves nothing. Transactions are built by hand in the reference layout, then broken.
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionInstruction as Instruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { createTransferInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodePaymentHeader } from '../../functions/payments/client.js';
import { programIds } from '../../functions/payments/networks.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { givenPayer, lamportBalance, paymentWorld, rewriteHeader, tokenBalance, tokenTransfer } from '../support/payments.js';

const world = paymentWorld();
let offer: PaymentRequirement;
let payer: Keypair;

beforeAll(async () => {
  [offer] = (await world.api.request('GET', world.paidPath)).body.accepts;
  payer = await givenPayer(world.api);
});

const memo = () => new Instruction({ programId: new PublicKey(programIds.memo), keys: [], data: Buffer.from(Keypair.generate().publicKey.toBase58()) });

/** The reference client's layout: compute limit, compute price, TransferChecked of the full price to payTo's ATA, memo. */
function referenceInstructions(change: Partial<{ amount: bigint; to: string; price: number; authority: Keypair }> = {}): TransactionInstruction[] {
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units: 20_000 }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: change.price ?? 1 }),
    tokenTransfer(change.authority ?? payer, offer.asset, change.to ?? offer.payTo, change.amount ?? BigInt(offer.maxAmountRequired)),
    memo(),
  ];
}

async function header(instructions: TransactionInstruction[], { feePayer = new PublicKey(offer.extra.feePayer!), signers = [payer] } = {}) {
  const { blockhash } = await world.connection.getLatestBlockhash();
  const transaction = new VersionedTransaction(new TransactionMessage({ payerKey: feePayer, recentBlockhash: blockhash, instructions }).compileToV0Message());
  transaction.sign(signers);
  return encodePaymentHeader(transaction, offer);
}

async function balances() {
  const who = [payer.publicKey.toBase58(), offer.payTo, world.ownerWallet];
  const tokens = await Promise.all(who.map((address) => tokenBalance(world.connection, offer.asset, address)));
  return {
    tokens,
    feePayer: await lamportBalance(world.connection, offer.extra.feePayer!),
    payerLamports: await lamportBalance(world.connection, payer.publicKey.toBase58()),
  };
}

const withInstruction = (index: number, instruction: TransactionInstruction) =>
  referenceInstructions().map((existing, at) => (at === index ? instruction : existing));

const cases: Array<[string, () => Promise<string>, string, string]> = [
  ['two instructions only', () => header(referenceInstructions().slice(1, 3)), 'INVALID_PAYMENT', 'invalid_exact_svm_payload_transaction_instructions_length'],
  [
    'seven instructions',
    () => header([...referenceInstructions(), memo(), memo(), memo()]),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_transaction_instructions_length',
  ],
  [
    'no compute limit first',
    () => header(withInstruction(0, memo())),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
  ],
  [
    'no compute price second',
    () => header(withInstruction(1, memo())),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction',
  ],
  [
    'a compute price above 5 lamports',
    () => header(referenceInstructions({ price: 5_000_001 })),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
  ],
  [
    'a plain Transfer instead of TransferChecked',
    () =>
      header(
        withInstruction(
          2,
          createTransferInstruction(
            getAssociatedTokenAddressSync(new PublicKey(offer.asset), payer.publicKey),
            getAssociatedTokenAddressSync(new PublicKey(offer.asset), new PublicKey(offer.payTo)),
            payer.publicKey,
            10_000n,
          ),
        ),
      ),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_no_transfer_instruction',
  ],
  [
    'the fee payer as transfer authority',
    () =>
      header(withInstruction(2, tokenTransfer({ publicKey: new PublicKey(offer.extra.feePayer!) } as Keypair, offer.asset, offer.payTo, 10_000n)), {
        signers: [],
      }),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
  ],
  [
    'another mint',
    () => header(withInstruction(2, tokenTransfer(payer, Keypair.generate().publicKey.toBase58(), offer.payTo, 10_000n))),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_mint_mismatch',
  ],
  [
    'the owner instead of the settlement account',
    () => header(referenceInstructions({ to: world.ownerWallet })),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_recipient_mismatch',
  ],
  ['less than the price', () => header(referenceInstructions({ amount: 9_999n })), 'INSUFFICIENT_AMOUNT', 'invalid_exact_svm_payload_amount_mismatch'],
  ['more than the price', () => header(referenceInstructions({ amount: 10_001n })), 'INVALID_PAYMENT', 'invalid_exact_svm_payload_amount_mismatch'],
  [
    'a fourth instruction that is no memo',
    () =>
      header([
        ...referenceInstructions().slice(0, 3),
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }),
      ]),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_unknown_fourth_instruction',
  ],
  [
    'a fifth instruction that is no memo',
    () => header([...referenceInstructions(), SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 })]),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_unknown_fifth_instruction',
  ],
  [
    "the fee payer among an instruction's accounts",
    () =>
      header([
        ...referenceInstructions().slice(0, 3),
        new Instruction({
          programId: new PublicKey(programIds.memo),
          keys: [{ pubkey: new PublicKey(offer.extra.feePayer!), isSigner: false, isWritable: true }],
          data: Buffer.from('x'),
        }),
      ]),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_transaction_fee_payer_included_in_instruction_accounts',
  ],
  [
    'another fee payer',
    async () =>
      rewriteHeader(await header(referenceInstructions(), { feePayer: payer.publicKey }), (payload) => ({
        x402Version: 2,
        accepted: { scheme: 'exact', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', asset: offer.asset, payTo: offer.payTo },
        payload: payload.payload,
      })),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_fee_payer_mismatch',
  ],
  [
    'a forged payer signature',
    async () =>
      rewriteHeader(await header(referenceInstructions()), (payload) => {
        const wire = Buffer.from(payload.payload.transaction, 'base64');
        wire[1 + 64 + 5] = wire[1 + 64 + 5]! ^ 0xff;
        return { ...payload, payload: { transaction: wire.toString('base64') } };
      }),
    'INVALID_PAYMENT',
    'invalid_exact_svm_payload_transaction_signature',
  ],
  [
    'a payer without the funds (simulation)',
    () => {
      const broke = Keypair.generate();
      return header(referenceInstructions({ authority: broke }), { signers: [broke] });
    },
    'SETTLEMENT_FAILED',
    'transaction_simulation_failed',
  ],
];

describe("payments: the reference facilitator's rules on the payout offer", () => {
  for (const [what, paying, code, reason] of cases) {
    it(`refuses ${what} with ${code} (${reason}) and moves nothing`, async () => {
      // Prepare
      const value = await paying();
      const [before, calls] = [await balances(), world.upstream.received.length];
      // Act
      const response = await world.api.request('GET', world.paidPath, { headers: { 'x-payment': value } });
      // Assess
      expect(response.status).toBe(402);
      expect(response.body).toMatchObject({ error: code, reason });
      expect(await balances()).toEqual(before);
      expect(world.upstream.received.length).toBe(calls);
    });
  }
});
