// The marketplace's paid calls as MCP tools, paid through x402's MCP transport: a call without payment answers the
// tool-result binding (isError, the PaymentRequired in structuredContent and, wrapped in `x402/error`, as JSON in
// content[0].text); a call with `_meta["x402/payment"]` goes through the same paid call as HTTP (verified, settled, then
// run) and answers with `_meta["x402/payment-response"]`. Plain objects in MCP's shapes: the app's server sends them.
import { AppError } from '#platform/errors.js';
import { type JsonSchema, mcpDiscovery, parametersSchema } from './bazaar.js';
import { networkName } from './networks.js';
import { toV2PaymentRequired } from './requirements.js';
import { type PaymentRequirement, type PaymentTrigger, sellableMethodName } from './schemas.js';
import type { Admission, Listing, PaymentService } from './service.js';
import type { SolanaNetwork } from './networks.js';

export const paymentMetaKey = 'x402/payment';
export const paymentResponseMetaKey = 'x402/payment-response';

export interface MarketplaceTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: { title: string; readOnlyHint: boolean; openWorldHint: true };
}

export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** `<resourceId>.<method>`: stable, unique (ids hold no dot), within MCP's 128 characters of `A-Z a-z 0-9 _ - .`. */
export const toolName = (resourceId: string, methodName: string) => `${resourceId}.${methodName}`;

function parseToolName(name: string): { resourceId: string; methodName: string } | undefined {
  const dot = name.indexOf('.');
  return dot > 0 ? { resourceId: name.slice(0, dot), methodName: name.slice(dot + 1) } : undefined;
}

const usd = (amount: number) => `${Number(amount.toFixed(6))} USD`;

export function toolOf({ resource, method }: Listing): MarketplaceTool {
  const title = `${resource.name}: ${method.name}`;
  return {
    name: toolName(resource.resourceId, method.name),
    title,
    description: `${method.description ?? resource.description} (paid per call through x402: ${usd(method.priceUsd)}, in USDC on Solana; 90% goes to the resource's owner)`,
    inputSchema: parametersSchema(method),
    annotations: { title, readOnlyHint: method.definition.httpMethod.toUpperCase() === 'GET', openWorldHint: true },
  };
}

const text = (value: string): ToolResult['content'] => [{ type: 'text', text: value }];

/** A refusal that is not about payment (unknown tool, bad arguments, a listing that cannot be sold): a plain tool error. */
const toolError = (code: string, message: string, details?: unknown): ToolResult => ({
  isError: true,
  structuredContent: { error: { code, message, ...(details !== undefined && { details }) } },
  content: text(`${code}: ${message}`),
});

function paymentRequiredResult(paymentRequired: Record<string, unknown>, message: string): ToolResult {
  return {
    isError: true,
    structuredContent: paymentRequired,
    content: text(JSON.stringify({ 'x402/error': { code: 402, message, data: paymentRequired } })),
  };
}

export interface MarketplaceCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The request's `_meta["x402/payment"]`, if any. */
  payment: unknown;
  /** The MCP server's URL: the PaymentRequired's resource. */
  serverUrl: string;
  /** The origin paid-call URLs are built on. */
  baseUrl: string;
  client: string | null;
  admit?: (sale: { resourceId: string; methodName: string; amountUsd: number }) => Promise<Admission>;
}

export function createMarketplaceTools(payments: Pick<PaymentService, 'paidCall' | 'listings'>) {
  return {
    tools: async (): Promise<MarketplaceTool[]> => (await payments.listings()).map(toolOf),

    async call(call: MarketplaceCall): Promise<ToolResult> {
      const named = parseToolName(call.name);
      if (!named || !sellableMethodName.test(named.methodName)) return toolError('NOT_FOUND', `no tool named ${call.name}`);
      const trigger: PaymentTrigger = { type: 'mcp', client: call.client };
      let outcome: Awaited<ReturnType<PaymentService['paidCall']>>;
      try {
        outcome = await payments.paidCall({
          ...named,
          baseUrl: call.baseUrl,
          params: { body: call.arguments },
          ...(call.payment !== undefined && { payment: { version: 2, payload: call.payment } }),
          trigger,
          ...(call.admit && { admit: call.admit }),
        });
      } catch (error) {
        // NOT_FOUND for an unpublished or unknown listing (the tool is gone), CONFLICT for one that cannot be sold,
        // VALIDATION_ERROR for arguments that do not fit: the client is told which, and nothing was paid.
        if (error instanceof AppError && error.status < 500) {
          return toolError(error.code, error.code === 'NOT_FOUND' ? `no tool named ${call.name}` : error.message, error.details);
        }
        throw error;
      }
      const tool = toolOf(outcome.listing);
      if (outcome.kind === 'waiting') {
        return { isError: true, structuredContent: outcome.waiting, content: text(JSON.stringify(outcome.waiting)) };
      }
      if (outcome.kind === 'served') {
        const { response, settlement } = outcome;
        const json = parseObject(response);
        return {
          content: text(response.body),
          ...(json && { structuredContent: json }),
          ...(response.status >= 400 && { isError: true }),
          _meta: { [paymentResponseMetaKey]: settlement },
        };
      }
      const { accepts, error } = outcome;
      const message = error?.message ?? `payment required: send an x402 v2 PaymentPayload in _meta["${paymentMetaKey}"]`;
      const paymentRequired: Record<string, unknown> = {
        ...toV2PaymentRequired(accepts, message, mcpDiscovery(tool, outcome.listing.method), {
          url: call.serverUrl,
          description: tool.description,
          mimeType: 'application/json',
        }),
        ...(error && { errorCode: error.code }),
        ...(error && { [paymentResponseMetaKey]: failedSettlement(error.code, accepts, error.extras.settlement?.transaction, error.extras.payer) }),
      };
      return paymentRequiredResult(paymentRequired, message);
    },
  };
}

/** The SettlementResponse of a refused or failed payment: x402 v2's shape, the interface's code as the reason. */
const failedSettlement = (code: string, accepts: PaymentRequirement[], transaction: string | undefined, payer: string | undefined) => ({
  success: false,
  errorReason: code,
  transaction: transaction ?? '',
  network: networkName(accepts[0]!.network as SolanaNetwork, 2),
  ...(payer && { payer }),
});

function parseObject(response: { contentType: string; body: string }): Record<string, unknown> | undefined {
  if (!response.contentType.includes('json')) return undefined;
  try {
    const parsed: unknown = JSON.parse(response.body);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
