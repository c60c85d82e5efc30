import type { TableDefinition } from '../platform/table-definition.js';

export const oauthTables = {
  oauthClients: {
    partitionKey: 'clientId',
    ttlAttribute: 'expiresAt',
    description:
      'OAuth clients registered dynamically (RFC 7591): name, redirect URIs, authentication method and the SHA-256 of a confidential client’s secret. A registration no user consents to within a day expires; one that obtains a grant is kept.',
  },
  oauthAuthorizations: {
    partitionKey: 'authorizationId',
    ttlAttribute: 'expiresAt',
    description:
      'Authorization requests of OAuth clients: the client, redirect URI, PKCE challenge, scopes and resource asked; the consenting user and the scopes approved; the SHA-256 of the one-time authorization code and the grant it bought. Kept a day for reuse detection.',
  },
} as const satisfies Record<string, TableDefinition>;
