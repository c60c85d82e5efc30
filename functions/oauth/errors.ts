// OAuth's own error answers (RFC 6749 §5.2, RFC 7591 §3.2.2): `{error, error_description}`, not the platform's envelope,
// since OAuth clients parse these.

export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
export const invalidClient = (description: string) => new OAuthError('invalid_client', description, 401);
