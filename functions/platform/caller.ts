// Who is calling: the identity the authorizer resolved from an API key, and what its scopes allow.

export interface Caller {
  userId: string;
  keyId: string;
  scopes: string[];
}

/** `*` holds every scope; otherwise any one of `wanted` suffices. */
export const hasScope = (caller: Pick<Caller, 'scopes'>, wanted: string[]) =>
  caller.scopes.includes('*') || wanted.some((scope) => caller.scopes.includes(scope));
