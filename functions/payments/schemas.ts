// Shapes of the payments area: the interface's payment requirements and records, x402 payloads (v1 and v2), facilitator bodies.
import * as z from 'zod';
import { IsoDate, OpaqueId, SolanaAddress, pagination } from '#platform/schemas.js';

export const settlementStatuses = ['pending', 'confirmed', 'failed'] as const;
export type SettlementStatus = (typeof settlementStatuses)[number];

const AtomicAmount = z.string().regex(/^\d{1,20}$/, 'must be a whole number of atomic units, as a string');

/** One item of `accepts` (Payment requirements). */
export interface PaymentRequirement {
  scheme: 'exact';
  network: string;
  /** Atomic units of `asset`, as a string. */
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra: {
    agentOwner: { username: string; userId: string; walletAddress: string };
    serverFeePercentage: number;
    serverWalletAddress: string;
    /** Decimals of the asset, for TransferChecked. */
    decimals: number;
    symbol: 'USDC' | 'SOL';
    /**
     * `payout`: the offer reference x402 clients pay (full price to the settlement account `payTo`, fees paid by
     * `feePayer`, the owner's 90% paid out later); `split`: the interface's offer, 90% and 10% in the payer's transaction.
     */
    settlement: 'payout' | 'split';
    /** The platform's fee-payer key, on `payout` offers only (the reference `exact` scheme's extra.feePayer). */
    feePayer?: string;
  };
}

/** The body of every 402: `error` null when it only asks for payment. */
export interface PaymentRequiredBody {
  x402Version: 1;
  error: string | null;
  message?: string;
  accepts: PaymentRequirement[];
}

/** PaymentRequiredBody as the API reference shows it (the 402 answer of a paid route). */
export const PaymentRequiredSchema = z.object({
  x402Version: z.literal(1),
  error: z.string().nullable().describe('null when the request only lacks a payment; otherwise the code of the refused payment, e.g. INSUFFICIENT_AMOUNT'),
  message: z.string().optional(),
  accepts: z
    .array(
      z.object({
        scheme: z.literal('exact'),
        network: z.string().describe('solana or solana-devnet'),
        maxAmountRequired: z.string().describe('price in atomic units of `asset` (USDC: 6 decimals, SOL: 9), as a string'),
        resource: z.string().describe('the URL to repeat with the payment'),
        description: z.string(),
        mimeType: z.string(),
        payTo: z.string().describe('Solana address that receives the amount'),
        maxTimeoutSeconds: z.number().describe('seconds the offer stays valid'),
        asset: z.string().describe('mint address, or the native coin'),
        extra: z.object({ decimals: z.number(), symbol: z.enum(['USDC', 'SOL']), feePayer: z.string().optional() }).passthrough(),
      }),
    )
    .describe('offers, most compatible first: pay one of them'),
});

const SchemePayload = z.object({ transaction: z.string().min(1).max(8_000) });

/** What X-PAYMENT (v1) and PAYMENT-SIGNATURE (v2) carry, base64-encoded. */
export const PaymentPayload = z.discriminatedUnion('x402Version', [
  z.object({ x402Version: z.literal(1), scheme: z.string(), network: z.string(), payload: SchemePayload }),
  z.object({
    x402Version: z.literal(2),
    accepted: z.looseObject({ scheme: z.string(), network: z.string(), asset: z.string().optional(), payTo: z.string().optional() }),
    payload: SchemePayload,
  }),
]);
export type PaymentPayload = z.infer<typeof PaymentPayload>;

/** Facilitator requests name the requirement as x402 v1 (`maxAmountRequired`) or v2 (`amount`) does. */
export const FacilitatorRequirement = z
  .looseObject({
    scheme: z.string(),
    network: z.string(),
    maxAmountRequired: AtomicAmount.optional(),
    amount: AtomicAmount.optional(),
    resource: z.string().max(2048).optional(),
    description: z.string().max(2000).optional(),
    mimeType: z.string().max(200).optional(),
    payTo: SolanaAddress,
    maxTimeoutSeconds: z.number().int().min(1).max(300).default(60),
    asset: SolanaAddress,
    extra: z.looseObject({ agentOwner: z.looseObject({ userId: z.string().max(100) }).optional() }).optional(),
  })
  .refine((requirement) => (requirement.maxAmountRequired ?? requirement.amount) !== undefined, {
    message: 'give maxAmountRequired (v1) or amount (v2)',
    path: ['maxAmountRequired'],
  });
export type FacilitatorRequirement = z.infer<typeof FacilitatorRequirement>;

export const FacilitatorInput = z.object({
  x402Version: z.union([z.literal(1), z.literal(2)]),
  paymentPayload: PaymentPayload,
  paymentRequirements: FacilitatorRequirement,
});
export type FacilitatorInput = z.infer<typeof FacilitatorInput>;

/** What a paid-call URL can name: a method with another name is not sold. */
export const sellableMethodName = /^[A-Za-z0-9_.-]{1,100}$/;

export const PaidCallInput = z.object({
  resourceId: OpaqueId,
  methodName: z.string().regex(sellableMethodName, 'must be a method name'),
});

/** The interface's payment record, plus what a seller filters and reconciles by. */
export const PaymentRecord = z.object({
  txHash: z.string(),
  agentOwnerId: z.string(),
  network: z.string(),
  totalAmount: AtomicAmount,
  agentOwnerAmount: AtomicAmount,
  serverFeeAmount: AtomicAmount,
  asset: z.string(),
  resource: z.string(),
  resourceId: z.string().nullable(),
  methodName: z.string().nullable(),
  payer: z.string(),
  amountUsd: z.number().nullable(),
  timestamp: IsoDate,
  settlementStatus: z.enum(settlementStatuses),
  blockHeight: z.number().nullable(),
  failureReason: z.string().nullable(),
  /** `split`: the owner was paid in the payer's own transaction; `payout`: the platform holds it until a payout (GET .../payments/payouts). */
  settlement: z.enum(['split', 'payout']),
  /** How the paid call came when not over HTTP: `mcp` for a tool call of the marketplace's MCP server, with the client's name. */
  trigger: z.object({ type: z.literal('mcp'), client: z.string().nullable() }).optional(),
});
export type PaymentTrigger = NonNullable<PaymentRecord['trigger']>;
export type PaymentRecord = z.infer<typeof PaymentRecord>;

export const ListPaymentsInput = z.object({
  resourceId: z.string().max(80).optional(),
  status: z.enum(settlementStatuses).optional(),
  ...pagination(10),
});

/** A page of `/.well-known/x402`: listings (each one an HTTP endpoint and an MCP tool). */
export const DiscoveryInput = z.object({ ...pagination(50) });

export const TxHashInput = z.object({ txHash: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,90}$/, 'must be a base58 transaction signature') });

export const PaymentList = z.object({ payments: z.array(PaymentRecord), total: z.number(), limit: z.number(), offset: z.number() });

export const AirdropInput = z.object({
  address: SolanaAddress,
  asset: z.enum(['SOL', 'USDC']),
  /** In whole units of the asset (1.5 SOL, 20 USDC). */
  amount: z.number().positive().max(1_000_000).optional(),
});
export const AirdropResult = z.object({
  address: z.string(),
  asset: z.string(),
  mint: z.string(),
  amount: z.number(),
  atomicAmount: z.string(),
  balance: z.string(),
});

/** JSON-RPC 2.0 request; batches are not served (the platform's body parser takes objects only). */
export const JsonRpcRequest = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string().max(100),
  params: z.array(z.unknown()).max(10).optional(),
});

export const agentPaymentPrefix = 'agp';
