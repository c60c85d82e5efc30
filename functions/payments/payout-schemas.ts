// Shapes of the payout ledger as owners read it, their payment settings, and a payout run's summary.
import * as z from 'zod';
import { IsoDate, pagination } from '#platform/schemas.js';

const AtomicAmount = z.string().regex(/^\d{1,30}$/);

export const ListPayoutsInput = z.object({ ...pagination(20) });

export const PayoutList = z.object({
  /** Per asset, atomic units: owed (not yet sent), inFlight (sent, not yet confirmed), paid. */
  balances: z.array(z.object({ asset: z.string(), owed: AtomicAmount, inFlight: AtomicAmount, paid: AtomicAmount })),
  payouts: z.array(
    z.object({
      batchId: z.string(),
      asset: z.string(),
      /** The owed payments it settles; the owner received it less `cost`. */
      amount: AtomicAmount,
      /** What the payout cost the network (its fee, and the rent of the owner's token account when it created it). */
      cost: AtomicAmount,
      walletAddress: z.string(),
      status: z.enum(['submitted', 'paid', 'failed']),
      transaction: z.string(),
      /** How many payments this payout settles. */
      payments: z.number(),
      createdAt: IsoDate,
      concludedAt: IsoDate.nullable(),
      failureReason: z.string().nullable(),
    }),
  ),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
});

/** splitOfferOnly: no payout offer is made for the caller's resources, so every payment pays them directly. */
export const PaymentSettings = z.object({ splitOfferOnly: z.boolean() });

export const PayoutRunResult = z.object({
  reconciled: z.number(),
  paid: z.array(
    z.object({
      batchId: z.string(),
      ownerId: z.string(),
      asset: z.string(),
      amount: AtomicAmount,
      cost: AtomicAmount,
      payments: z.number(),
      transaction: z.string(),
    }),
  ),
  failed: z.array(z.object({ batchId: z.string(), ownerId: z.string(), reason: z.string() })),
  unconfirmed: z.number(),
  /** Owners whose owed sum does not yet exceed the cost of paying it out: it stays owed until it does. */
  deferred: z.array(z.object({ ownerId: z.string(), asset: z.string(), owed: AtomicAmount, cost: AtomicAmount })),
});
