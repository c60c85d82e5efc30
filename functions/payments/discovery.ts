// Discovery documents: `/.well-known/x402` (every paid endpoint, HTTP and MCP, with its offers and bazaar info) and
// the MCP registry's server.json of the deployment (the per-user server and the marketplace's paid one).
import { httpDiscovery, mcpDiscovery } from './bazaar.js';
import { toolName, toolOf } from './marketplace-tools.js';
import { toV2Requirement } from './requirements.js';
import type { PaymentRequirement } from './schemas.js';
import type { Listing } from './service.js';

export const mcpPaths = { user: '/mcp', marketplace: '/mcp/marketplace' } as const;

/** One listing with its offers: an HTTP paid-call endpoint and a tool of the marketplace's MCP server. */
export function discoveryItems({ listing, accepts }: { listing: Listing; accepts: PaymentRequirement[] }, baseUrl: string) {
  const tool = toolOf(listing);
  const common = { x402Version: 2, accepts: accepts.map(toV2Requirement), description: tool.description, mimeType: 'application/json' };
  return [
    { ...common, type: 'http', resource: accepts[0]!.resource, extensions: { bazaar: httpDiscovery(listing.method) } },
    {
      ...common,
      type: 'mcp',
      resource: `${baseUrl}${mcpPaths.marketplace}`,
      tool: toolName(listing.resource.resourceId, listing.method.name),
      extensions: { bazaar: mcpDiscovery(tool, listing.method) },
    },
  ];
}

/** The deployment's host, reversed: the namespace of its server name (`com.example.api/automation-platform`). */
const namespaceOf = (baseUrl: string) => new URL(baseUrl).hostname.split('.').reverse().join('.');

/**
 * A server.json of the MCP registry's format. One document names one server: it is the deployment's, with a remote for
 * each endpoint, and says in its publisher-provided metadata which endpoint serves what.
 */
export function mcpServerJson(baseUrl: string, version: string) {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json',
    name: `${namespaceOf(baseUrl)}/automation-platform`,
    title: 'Automation marketplace platform',
    description: 'Your automations as MCP tools, and the marketplace paid per call through x402',
    version,
    websiteUrl: baseUrl,
    remotes: [
      {
        type: 'streamable-http',
        url: `${baseUrl}${mcpPaths.user}`,
        headers: [{ name: 'Authorization', description: 'Bearer <API key or OAuth access token>', isSecret: true, isRequired: false }],
      },
      { type: 'streamable-http', url: `${baseUrl}${mcpPaths.marketplace}` },
    ],
    _meta: {
      'io.modelcontextprotocol.registry/publisher-provided': {
        servers: [
          {
            url: `${baseUrl}${mcpPaths.user}`,
            description: "The caller's own automations (installed resources, scripts, flows, documents); OAuth 2.1 or an API key",
          },
          {
            url: `${baseUrl}${mcpPaths.marketplace}`,
            description: "The marketplace's pay-per-call listings, no account: each tool call is paid through x402 (Solana, USDC)",
          },
        ],
      },
    },
  };
}
