import { AppError } from '#platform/errors.js';
import type { PaymentErrorCode } from './rules.js';

/** What a settled payment proves (X-PAYMENT-RESPONSE), with the payer as x402 adds it. */
export interface SettlementProof {
  success: boolean;
  transaction: string;
  blockHeight: number | null;
  network: string;
  payer: string;
}

/** A resource's answer as served to the payer, kept with the payment so a replay gets it back. */
export interface ServedResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * One of the interface's payment codes. Paid calls render it as the 402 body of the design (x402-http.ts);
 * anywhere else the middleware renders it like any AppError, with status 402.
 */
export class PaymentError extends AppError {
  constructor(
    readonly code: PaymentErrorCode,
    message: string,
    /** `reason`: the reference x402 facilitator's name for the refusal, for reference-client payments. */
    readonly extras: { payer?: string; reason?: string; settlement?: SettlementProof; earlierResponse?: ServedResponse } = {},
  ) {
    super(code, 402, message);
  }
}
