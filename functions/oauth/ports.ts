// What the OAuth area needs from others, in its own words: grants and their tokens (the accounts area keeps them in its
// keys table), a rate limiter for registrations, and the console's address for the consent page.

export interface IssuedTokens {
  grantId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scopes: string[];
}

export interface Grants {
  issueGrant(request: { userId: string; clientId: string; clientName: string; scopes: string[]; resource: string }): Promise<IssuedTokens>;
  /** New tokens, or why not (`reused` has revoked the grant). */
  refreshGrant(refreshToken: string, clientId: string, resource?: string): Promise<IssuedTokens | { refused: string }>;
  revokeGrant(grantId: string): Promise<void>;
  activeGrantCount(userId: string): Promise<number>;
}

export interface RegistrationLimiter {
  /** Counts one registration from `source`; false past the limit. */
  allow(source: string): Promise<boolean>;
}
