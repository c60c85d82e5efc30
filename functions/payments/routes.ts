import { type Capability, type FunctionSpec, defineRoutes } from '#platform/route.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import {
  AirdropInput,
  AirdropResult,
  FacilitatorInput,
  JsonRpcRequest,
  ListPaymentsInput,
  PaidCallInput,
  PaymentList,
  PaymentRecord,
  PaymentRequiredSchema,
  TxHashInput,
  DiscoveryInput,
} from './schemas.js';
import { ListPayoutsInput, PaymentSettings, PayoutList, PayoutRunResult } from './payout-schemas.js';

/** What offers read (the owner's settings) and what settling a payout-offer payment writes (the owed entry). */
const payoutTables = { paymentSettings: 'read', payouts: 'write' } as const;

/** A payout run: the ledger, the owners' wallets, both platform keys. */
const payoutRunTables = { payouts: 'write', payoutBatches: 'write', users: 'read' } as const;

/**
 * An agent's paid call (one presenting an API key) reads the key, counts its spend and may ask its owner's approval
 * (which reads approvers and publishes the request).
 */
const agentBudgetTables = { apiKeys: 'read', agentBudgets: 'write', usernames: 'read', approvals: 'write', approverInbox: 'write' } as const;

/** A paid call reads the resource and the seller, settles, then runs the method as the resources area does. */
const paidCallTables = {
  ...resourceRoutes.callResource.tables,
  payments: 'write',
  users: 'read',
  resources: 'write',
  ...payoutTables,
  ...agentBudgetTables,
} as const;

// Paid calls, the facilitator and the JSON-RPC endpoint answer bare bodies (402 bodies, the resource's own answer,
// x402 and JSON-RPC shapes), not the envelope the generated OpenAPI document describes: they declare no `output`.
const paidCall = {
  auth: 'public',
  input: PaidCallInput,
  paymentRequired: PaymentRequiredSchema,
  tables: paidCallTables,
  // credentialsKey: the owner's stored upstream credentials are decrypted for the call; feePayer co-signs
  // reference-client payments; payoutRunner is asked for a payout when an owner's owed sum crosses the threshold;
  // eventBus tells a key's owner of an approval their agent's paid call waits for.
  // The platform wallet's address comes from the stack's context: public routes never read its secret.
  uses: ['credentialsKey', 'feePayer', 'payoutRunner', 'eventBus'] as Capability[],
  timeoutSeconds: 29,
} as const;

export const paymentRoutes = defineRoutes('payments', {
  mcpMarketplace: {
    method: 'ANY',
    path: '/mcp/marketplace',
    auth: 'public',
    errorFormat: 'jsonRpc',
    summary: "MCP server (Streamable HTTP, stateless) of the marketplace's paid calls, paid per call through x402's MCP transport",
    description:
      'A JSON-RPC message per POST; GET and DELETE answer 405. A tool call without `_meta["x402/payment"]` answers a tool result with `isError: true` and the x402 v2 PaymentRequired; with a PaymentPayload there, the payment is verified, settled, the method run, and the result carries `_meta["x402/payment-response"]`.',
    tables: paidCallTables,
    uses: paidCall.uses,
    timeoutSeconds: 29,
  },
  getX402Discovery: {
    method: 'GET',
    path: '/.well-known/x402',
    auth: 'public',
    summary: 'The paid endpoints (HTTP paid calls and MCP tools) with their price, network and payTo, and the bazaar discovery of each',
    input: DiscoveryInput,
    tables: { users: 'read', resources: 'read', paymentSettings: 'read' },
  },
  getMcpServerJson: {
    method: 'GET',
    path: '/.well-known/mcp/server.json',
    auth: 'public',
    summary: "The MCP registry's server.json of this deployment: the per-user MCP server and the marketplace's paid one",
  },
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
    method: 'POST',
    path: '/api/x402/verify',
    auth: 'public',
    summary: 'x402 facilitator: verify a payment against requirements without settling',
    input: FacilitatorInput,
    tables: { payments: 'read', users: 'read', resources: 'read', paymentSettings: 'read' },
    uses: ['feePayer'],
  },
  settlePayment: {
    method: 'POST',
    path: '/api/x402/settle',
    auth: 'public',
    summary: 'x402 facilitator: verify a payment and settle it on the network',
    input: FacilitatorInput,
    tables: { payments: 'write', users: 'read', resources: 'write', ...payoutTables },
    uses: ['feePayer', 'payoutRunner'],
    timeoutSeconds: 29,
  },
  getSupportedPayments: {
    method: 'GET',
    path: '/api/x402/supported',
    auth: 'public',
    summary: 'x402 facilitator: supported schemes and networks, with the fee payer of each',
    uses: ['feePayer'],
  },
  listPayouts: {
    method: 'GET',
    path: '/api/sdk/v1/payments/payouts',
    auth: 'apiKey',
    summary: "What the platform owes the caller from reference-client payments and has paid out, per asset, with the caller's payouts newest first",
    input: ListPayoutsInput,
    output: PayoutList,
    tables: { payouts: 'read', payoutBatches: 'read' },
  },
  getPaymentSettings: {
    method: 'GET',
    path: '/api/sdk/v1/payments/settings',
    auth: 'apiKey',
    summary: "The caller's payment settings (splitOfferOnly)",
    output: PaymentSettings,
    tables: { paymentSettings: 'read' },
  },
  updatePaymentSettings: {
    method: 'PUT',
    path: '/api/sdk/v1/payments/settings',
    auth: 'apiKey',
    summary: 'splitOfferOnly: true offers only the split in which the payer pays the caller directly (no payout offer for reference clients)',
    input: PaymentSettings,
    output: PaymentSettings,
    tables: { paymentSettings: 'write' },
  },
  listPayments: {
    method: 'GET',
    path: '/api/sdk/v1/payments',
    auth: 'apiKey',
    summary: "Payments received for the caller's resources, newest first",
    input: ListPaymentsInput,
    output: PaymentList,
    tables: { payments: 'read' },
  },
  getPayment: {
    method: 'GET',
    path: '/api/sdk/v1/payments/{txHash}',
    auth: 'apiKey',
    summary: 'One payment received, by transaction hash',
    input: TxHashInput,
    output: PaymentRecord,
    tables: { payments: 'read' },
  },
  solanaRpc: {
    method: 'POST',
    path: '/solana',
    auth: 'public',
    summary: 'Local mode: Solana JSON-RPC over the embedded bank',
    localOnly: true,
    input: JsonRpcRequest,
  },
  devRunPayouts: {
    method: 'POST',
    path: '/api/x402/dev/payouts',
    auth: 'public',
    summary: 'Local mode: run the payout schedule now',
    localOnly: true,
    // It runs the payout function's work in the API process, so it gets that function's tables.
    output: PayoutRunResult,
    tables: payoutRunTables,
    timeoutSeconds: 300,
  },
  devAirdrop: {
    method: 'POST',
    path: '/api/x402/dev/airdrop',
    auth: 'public',
    summary: 'Local mode: faucet of SOL and the local USDC',
    localOnly: true,
    input: AirdropInput,
    output: AirdropResult,
  },
});

/** The payout run: on a schedule, and invoked when an owner's owed sum crosses the threshold. */
export const payoutRunnerFunction: FunctionSpec = {
  name: 'runPayouts',
  summary: 'Pays owners their share of reference-client payments, batched per owner and asset; reconciles earlier payouts against the chain',
  handler: 'functions/app/payments/handlers/run-payouts.ts',
  tables: payoutRunTables,
  uses: ['platformWallet', 'feePayer'],
  timeoutSeconds: 300,
};
