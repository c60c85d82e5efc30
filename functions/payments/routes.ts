import { type Capability, defineRoutes } from '#platform/route.js';
import { resourceCallTables } from '../resources/tables.js';
import { AirdropInput, AirdropResult, FacilitatorInput, JsonRpcRequest, ListPaymentsInput, PaidCallInput, PaymentList, PaymentRecord, PaymentRequiredSchema, TxHashInput } from './schemas.js';

/** A paid call reads the resource and the seller, settles, then runs the method as the resources area does. */
const paidCallTables = {
  ...resourceCallTables,
  payments: 'write',
  users: 'read',
  resources: 'write',
} as const;

// Paid calls, the facilitator and the JSON-RPC endpoint answer bare bodies (402 bodies, the resource's own answer,
// x402 and JSON-RPC shapes), not the envelope the generated OpenAPI document describes: they declare no `output`.
const paidCall = {
  auth: 'public',
  input: PaidCallInput,
  paymentRequired: PaymentRequiredSchema,
  tables: paidCallTables,
  // credentialsKey: the owner's stored upstream credentials are decrypted for the call.
  uses: ['platformWallet', 'credentialsKey'] as Capability[],
  timeoutSeconds: 29,
} as const;

export const paymentRoutes = defineRoutes('payments', {
  getPaidResource: {
    ...paidCall,
    method: 'GET',
    path: '/api/x402/resources/{resourceId}/{methodName}',
    summary: 'Call a paid resource method, params in the query string: 402 with payment requirements, or the answer once X-PAYMENT settles',
  },
  callPaidResource: {
    ...paidCall,
    method: 'POST',
    path: '/api/x402/resources/{resourceId}/{methodName}',
    summary: 'Call a paid resource method, params in the JSON body: 402 with payment requirements, or the answer once X-PAYMENT settles',
  },
  verifyPayment: {
    method: 'POST', path: '/api/x402/verify', auth: 'public', summary: 'x402 facilitator: verify a payment against requirements without settling',
    input: FacilitatorInput, tables: { payments: 'read', users: 'read', resources: 'read' }, uses: ['platformWallet'],
  },
  settlePayment: {
    method: 'POST', path: '/api/x402/settle', auth: 'public', summary: 'x402 facilitator: verify a payment and settle it on the network',
    input: FacilitatorInput, tables: { payments: 'write', users: 'read', resources: 'write' }, uses: ['platformWallet'], timeoutSeconds: 29,
  },
  getSupportedPayments: {
    method: 'GET', path: '/api/x402/supported', auth: 'public', summary: 'x402 facilitator: supported schemes and networks',
  },
  listPayments: {
    method: 'GET', path: '/api/sdk/v1/payments', auth: 'apiKey', summary: "Payments received for the caller's resources, newest first",
    input: ListPaymentsInput, output: PaymentList, tables: { payments: 'read' },
  },
  getPayment: {
    method: 'GET', path: '/api/sdk/v1/payments/{txHash}', auth: 'apiKey', summary: 'One payment received, by transaction hash',
    input: TxHashInput, output: PaymentRecord, tables: { payments: 'read' },
  },
  solanaRpc: {
    method: 'POST', path: '/solana', auth: 'public', summary: 'Local mode: Solana JSON-RPC over the embedded bank', localOnly: true,
    input: JsonRpcRequest,
  },
  devAirdrop: {
    method: 'POST', path: '/api/x402/dev/airdrop', auth: 'public', summary: 'Local mode: faucet of SOL and the local USDC', localOnly: true,
    input: AirdropInput, output: AirdropResult,
  },
});
