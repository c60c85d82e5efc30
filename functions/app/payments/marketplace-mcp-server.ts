// The marketplace's MCP server for one request: the SDK's low-level server with the paid listings as tools.
// tools/list pages by offset; tools/call hands the call and its `_meta["x402/payment"]` to the marketplace tools.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type MarketplaceCall, createMarketplaceTools, paymentMetaKey } from '#functions/payments/marketplace-tools.js';
import type { PaymentService } from '#functions/payments/service.js';
import { settings } from '#platform/settings.js';

const pageSize = 100;

const cursorOf = (offset: number) => Buffer.from(String(offset)).toString('base64url');

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!Number.isSafeInteger(offset) || offset < 0) throw new McpError(ErrorCode.InvalidParams, 'cursor is not one this server gave');
  return offset;
}

export interface MarketplaceRequest {
  serverUrl: string;
  baseUrl: string;
  client: string | null;
  /** The agent budget of the API key the request presents, for the approval a call names in `_meta`. */
  admission?: (approvalId: string | undefined) => NonNullable<MarketplaceCall['admit']>;
}

/** Where a call made again after its owner's approval names that approval. */
export const approvalMetaKey = 'platform/approvalId';

export function marketplaceMcpServer(payments: Pick<PaymentService, 'paidCall' | 'listings'>, request: MarketplaceRequest): Server {
  const tools = createMarketplaceTools(payments);
  const server = new Server(
    { name: 'automation-platform-marketplace', title: 'Automation marketplace (paid per call with x402)', version: settings.version },
    {
      capabilities: { tools: {} },
      instructions: `Each tool is a paid call of a marketplace listing. Call it without payment to get the x402 v2 PaymentRequired (isError: true, in structuredContent); call it again with an x402 v2 PaymentPayload in params._meta["${paymentMetaKey}"].`,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async ({ params }) => {
    const offset = offsetOf(params?.cursor);
    const all = await tools.tools();
    const next = offset + pageSize;
    return { tools: all.slice(offset, next), ...(next < all.length && { nextCursor: cursorOf(next) }) };
  });
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const approvalId = params._meta?.[approvalMetaKey];
    const { admission, ...context } = request;
    return tools.call({
      name: params.name,
      arguments: params.arguments ?? {},
      payment: params._meta?.[paymentMetaKey],
      ...context,
      ...(admission && { admit: admission(typeof approvalId === 'string' ? approvalId : undefined) }),
    });
  });
  return server;
}
