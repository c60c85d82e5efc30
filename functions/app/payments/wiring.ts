// The payments area's composition: the payment and payout services with their production dependencies (stores, the
// platform root's ledger, signers, payout trigger and metrics) and the port onto the resources and accounts areas.
// Handlers get their services here; services never import this file.
import { accountsApi } from '#functions/app/accounts/wiring.js';
import { approvalsApi } from '#functions/app/approvals/wiring.js';
import { createAgentBudgetStore } from '#functions/payments/agent-budget-store.js';
import { type AgentBudgets, createAgentBudgets } from '#functions/payments/agent-budgets.js';
import type { PaidCallRequest } from '#functions/payments/service.js';
import { resourcesApi } from '#functions/app/resources/wiring.js';
import { checkParams } from '#functions/resources/api.js';
import { AppError } from '#platform/errors.js';
import { errorBody } from '#platform/http.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { payoutTrigger, platformSigners, solanaLedger } from '#functions/app/payment-adapters.js';
import type { ServedResponse } from '#functions/payments/errors.js';
import { usdToUsdc } from '#functions/payments/networks.js';
import { createPayoutStore } from '#functions/payments/payout-store.js';
import { type PayoutService, createPayoutService } from '#functions/payments/payouts.js';
import type { PaymentResources, ResourceForSale } from '#functions/payments/resources-port.js';
import type { ResourcesApi } from '#functions/resources/api.js';
import { type PaymentService, createPaymentService } from '#functions/payments/service.js';
import { maxTimeoutSeconds } from '#functions/payments/settings.js';
import { createPaymentStore } from '#functions/payments/store.js';

/** Method `cost`, else the resource's `basePrice`; the `free` model costs nothing (the resources area prices calls alike). */
const priceOf = (pricing: { model: string; basePrice?: number }, methodCost: number | undefined) =>
  pricing.model === 'free' ? 0 : (methodCost ?? pricing.basePrice ?? 0);

const served = (status: number, body: unknown): ServedResponse =>
  typeof body === 'string'
    ? { status, contentType: 'text/plain; charset=utf-8', body }
    : { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };

const forSale = (resource: Awaited<ReturnType<ResourcesApi['resourceForCall']>>): ResourceForSale => ({
  resourceId: resource.resourceId,
  name: resource.name,
  description: resource.description,
  published: resource.status === 'published',
  ownerId: resource.ownerId,
  methods: resource.methods.map((method) => ({
    name: method.name,
    description: method.description,
    priceUsd: priceOf(resource.pricing, method.cost),
    definition: method,
  })),
});

function productionResources(platform: Platform): PaymentResources {
  const { resourceForCall, listedForCall, callAsOwner, recordRevenue } = resourcesApi(platform);
  return {
    get: async (resourceId) => forSale(await resourceForCall(resourceId)),
    listed: async () => (await listedForCall()).map(forSale),
    checkParams: (method, params) => checkParams(method.definition, params),
    async call(request) {
      try {
        const result = await callAsOwner(request);
        return served(result.status, result.data ?? '');
      } catch (error) {
        // The payment has settled: a refusal or upstream failure is the answer the payer bought, kept like any other.
        if (error instanceof AppError) return served(error.status, errorBody(error));
        throw error;
      }
    },
    recordRevenue,
    seller: accountsApi(platform).profile,
  };
}

/** The payout service of this process (the payout function, the local schedule, threshold crossings). */
export const payoutService = perPlatform((platform: Platform): PayoutService => {
  const resources = productionResources(platform);
  const threshold = usdToUsdc(platform.settings.payments.payoutThresholdUsdc);
  return createPayoutService({
    store: createPayoutStore(),
    ledger: solanaLedger(platform),
    signers: platformSigners(platform),
    walletOf: async (ownerId) => (await resources.seller(ownerId))?.walletAddress ?? null,
    clock: platform.clock,
    threshold: () => threshold,
    confirmTimeoutMs: maxTimeoutSeconds * 1000,
    solPriceUsd: platform.settings.payments.solPriceUsd,
  });
});

export const paymentService = perPlatform(
  (platform: Platform): PaymentService =>
    createPaymentService({
      store: createPaymentStore(),
      payoutStore: createPayoutStore(),
      payouts: payoutService(platform),
      requestPayout: payoutTrigger(platform, (ownerId, asset) => payoutService(platform).run({ ownerId, asset })),
      ledger: solanaLedger(platform),
      signers: platformSigners(platform),
      resources: productionResources(platform),
      clock: platform.clock,
      metrics: platform.metrics,
      solPriceUsd: platform.settings.payments.solPriceUsd,
    }),
);

// Agent budgets: the key a paid call presents (accounts), its budget counters, and the owner's approvals (whose
// decisions of agent payments resume nothing: the agent makes the call again).
const agentBudgets = perPlatform((platform: Platform): AgentBudgets => {
  const approvals = approvalsApi(platform);
  return createAgentBudgets({
    store: createAgentBudgetStore(),
    approvals: {
      async request({ executionId, userId, name, message }) {
        const { approval } = await approvals.request({ executionId, scriptId: '', userId, ownerId: userId }, name, { message });
        return { approvalId: approval.approvalId, expiresAt: approval.expiresAt };
      },
      status: (approvalId) => approvals.statusOf(approvalId),
    },
    clock: platform.clock,
  });
});

/** The API key a request presents, if any: X-API-Key, or Authorization: Bearer. */
const presentedKey = (headers: Record<string, string | undefined>) => headers['x-api-key'] ?? /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];

/**
 * The admission of a paid call made with an API key (its budget); none for an anonymous payer. A key presented but
 * unknown or revoked is UNAUTHORIZED: an agent is never left thinking a budget holds when it does not.
 */
export async function agentAdmission(
  headers: Record<string, string | undefined>,
): Promise<((approvalId: string | undefined) => NonNullable<PaidCallRequest['admit']>) | undefined> {
  const apiKey = presentedKey(headers);
  if (!apiKey) return undefined;
  const key = await accountsApi().agentKey(apiKey);
  return (approvalId) => agentBudgets().admission(key, approvalId);
}
