// Attacks on the platform's fee payer through the reference offer, on the embedded bank: the payer picks the compute
// budget and the signatures of a transaction the fee payer pays for, and /api/x402/settle lets the payer pick the amount.
// Each refusal is proved by the fee payer's balance, read before and after.
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  type TransactionInstruction,
  TransactionInstruction as Instruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePaymentHeader } from '../../functions/payments/client.js';
import { programIds } from '../../functions/payments/networks.js';
import { maxReferenceFeeLamports } from '../../functions/payments/reference-rules.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { givenPayer, lamportBalance, paymentWorld, tokenBalance, tokenTransfer } from '../support/payments.js';

const world = paymentWorld();
let offer: PaymentRequirement;
let payer: Keypair;
const tally = { refused: 0, lamportsLost: 0n, referenceFee: 0n };
afterAll(() =>
  console.log(
    `fee payer: ${tally.refused} attacks refused, fee-payer lamports lost to them ${tally.lamportsLost}; a reference payment cost it ${tally.referenceFee}`,
  ),
);

beforeAll(async () => {
  [offer] = (await world.api.request('GET', world.paidPath)).body.accepts;
  payer = await givenPayer(world.api);
});

/** The reference layout (compute limit, compute price, TransferChecked to the settlement account, memo) with the payer's budget. */
function referenceInstructions({
  units,
  microLamports,
  amount = BigInt(offer.maxAmountRequired),
  memoSigners = [],
}: {
  units: number;
  microLamports: number;
  amount?: bigint;
  memoSigners?: Keypair[];
}): TransactionInstruction[] {
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
    tokenTransfer(payer, offer.asset, offer.payTo, amount),
    new Instruction({
      programId: new PublicKey(programIds.memo),
      keys: memoSigners.map((signer) => ({ pubkey: signer.publicKey, isSigner: true, isWritable: false })),
      data: Buffer.from(Keypair.generate().publicKey.toBase58()),
    }),
  ];
}

/** Signed by the payer (and any extra signers), the fee payer's slot left for the platform. */
async function signed(instructions: TransactionInstruction[], extraSigners: Keypair[] = []): Promise<VersionedTransaction> {
  const { blockhash } = await world.connection.getLatestBlockhash();
  const transaction = new VersionedTransaction(
    new TransactionMessage({ payerKey: new PublicKey(offer.extra.feePayer!), recentBlockhash: blockhash, instructions }).compileToV0Message(),
  );
  transaction.sign([payer, ...extraSigners]);
  return transaction;
}

async function balances() {
  return {
    feePayer: await lamportBalance(world.connection, offer.extra.feePayer!),
    payerLamports: await lamportBalance(world.connection, payer.publicKey.toBase58()),
    payerUsdc: await tokenBalance(world.connection, offer.asset, payer.publicKey.toBase58()),
    platformUsdc: await tokenBalance(world.connection, offer.asset, offer.payTo),
  };
}

const extraSigners = Array.from({ length: 4 }, () => Keypair.generate());

const paidCallAttacks: Array<[string, () => Promise<VersionedTransaction>, string]> = [
  [
    "Solana's largest compute unit limit at the highest allowed price",
    () => signed(referenceInstructions({ units: 1_400_000, microLamports: 5_000_000 })),
    'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
  ],
  [
    'an allowed unit limit at the highest allowed price',
    () => signed(referenceInstructions({ units: 200_000, microLamports: 5_000_000 })),
    'invalid_exact_svm_payload_transaction_fee_too_high',
  ],
  [
    'four extra signatures the fee payer pays for',
    () => signed(referenceInstructions({ units: 20_000, microLamports: 1, memoSigners: extraSigners }), extraSigners),
    'invalid_exact_svm_payload_transaction_fee_too_high',
  ],
];

describe('hardening: the fee payer pays only a capped fee that the payment covers', () => {
  for (const [attack, transaction, reason] of paidCallAttacks) {
    it(`refuses a paid call whose transaction asks for ${attack}, and the fee payer's balance is unchanged`, async () => {
      // Prepare
      const header = encodePaymentHeader(await transaction(), offer);
      const [before, calls] = [await balances(), world.upstream.received.length];
      // Act
      const response = await world.api.request('GET', world.paidPath, { headers: { 'x-payment': header } });
      // Assess
      const after = await balances();
      tally.refused += response.status === 402 ? 1 : 0;
      tally.lamportsLost += before.feePayer - after.feePayer;
      expect(response.status).toBe(402);
      expect(response.body).toMatchObject({ error: 'INVALID_PAYMENT', reason });
      expect(after).toEqual(before);
      expect(world.upstream.received.length).toBe(calls);
    });
  }

  it('accepts the reference budget (20,000 units at 1 micro-lamport) and the fee payer spends no more than the cap', async () => {
    // Prepare
    const header = encodePaymentHeader(await signed(referenceInstructions({ units: 20_000, microLamports: 1 })), offer);
    const before = await balances();
    // Act
    const response = await world.api.request('GET', world.paidPath, { headers: { 'x-payment': header } });
    // Assess
    expect(response.status).toBe(200);
    const spent = before.feePayer - (await balances()).feePayer;
    tally.referenceFee = spent;
    expect(spent).toBeGreaterThan(0n);
    expect(spent).toBeLessThanOrEqual(maxReferenceFeeLamports);
  });

  const settleAttacks: Array<[string, { units: number; microLamports: number }, string, string]> = [
    ['the reference budget', { units: 20_000, microLamports: 1 }, 'INSUFFICIENT_AMOUNT', 'invalid_exact_svm_payload_amount_below_fee'],
    [
      'an expensive fee',
      { units: 1_400_000, microLamports: 5_000_000 },
      'INVALID_PAYMENT',
      'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
    ],
  ];
  for (const [what, budget, code, reason] of settleAttacks) {
    it(`refuses /api/x402/settle of one micro-USDC to the settlement account with ${what}, and the fee payer's balance is unchanged`, async () => {
      // Prepare
      const requirements = {
        scheme: 'exact',
        network: offer.network,
        maxAmountRequired: '1',
        resource: 'https://attacker.example/anything',
        payTo: offer.payTo,
        asset: offer.asset,
        maxTimeoutSeconds: 20,
        extra: { agentOwner: { userId: world.owner.userId }, feePayer: offer.extra.feePayer },
      };
      const transaction = await signed(referenceInstructions({ ...budget, amount: 1n }));
      const paymentPayload = {
        x402Version: 1,
        scheme: 'exact',
        network: offer.network,
        payload: { transaction: Buffer.from(transaction.serialize()).toString('base64') },
      };
      const before = await balances();
      // Act
      const settled = await world.api.request('POST', '/api/x402/settle', { body: { x402Version: 1, paymentPayload, paymentRequirements: requirements } });
      // Assess
      const after = await balances();
      tally.refused += settled.body.success === false ? 1 : 0;
      tally.lamportsLost += before.feePayer - after.feePayer;
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({ success: false, errorReason: code, reason });
      expect(after).toEqual(before);
    });
  }
});
