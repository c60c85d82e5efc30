// x402 transport encodings: base64 JSON headers in (X-PAYMENT v1, PAYMENT-SIGNATURE v2) and out.
import { parseInput } from '#platform/validation.js';
import { PaymentError } from './errors.js';
import { type SolanaNetwork, type X402Version, caip2Networks, networks } from './networks.js';
import { PaymentPayload } from './schemas.js';

/** Header names by protocol version: what the payer sends, what proves settlement, what asks for payment (v2 only). */
export const x402Headers = {
  1: { payment: 'x-payment', response: 'X-PAYMENT-RESPONSE' },
  2: { payment: 'payment-signature', response: 'PAYMENT-RESPONSE', required: 'PAYMENT-REQUIRED' },
} as const;

export const encodeHeader = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The payment header of a request, if any; API Gateway hands header names lower-cased. */
export function readPaymentHeader(headers: Record<string, string | undefined>): { version: X402Version; value: string } | undefined {
  const v2 = headers[x402Headers[2].payment];
  if (v2 !== undefined) return { version: 2, value: v2 };
  const v1 = headers[x402Headers[1].payment];
  return v1 === undefined ? undefined : { version: 1, value: v1 };
}

export function decodeBase64(value: string, what: string): Buffer {
  const trimmed = value.trim();
  if (trimmed === '' || !base64.test(trimmed)) throw new PaymentError('INVALID_PAYMENT', `${what} is not base64`);
  return Buffer.from(trimmed, 'base64');
}

/** The header's payment payload; anything malformed is INVALID_PAYMENT (Payment errors). */
export function decodePaymentHeader(value: string): PaymentPayload {
  let json: unknown;
  try {
    json = JSON.parse(decodeBase64(value, 'the payment header').toString('utf8'));
  } catch (error) {
    if (error instanceof PaymentError) throw error;
    throw new PaymentError('INVALID_PAYMENT', 'the payment header is not base64-encoded JSON');
  }
  return readPaymentPayload(json, 'the payment header');
}

/** A payment payload already parsed from JSON (the MCP transport's `_meta["x402/payment"]`); anything else is INVALID_PAYMENT. */
export function readPaymentPayload(json: unknown, what: string): PaymentPayload {
  try {
    return parseInput(PaymentPayload, json);
  } catch (error) {
    throw new PaymentError('INVALID_PAYMENT', `${what} is not an x402 payment payload: ${(error as Error).message}`);
  }
}

/** v1 short names and v2 CAIP-2 ids alike. */
export function toNetwork(name: string): SolanaNetwork | undefined {
  if ((networks as readonly string[]).includes(name)) return name as SolanaNetwork;
  return networks.find((network) => caip2Networks[network] === name);
}
