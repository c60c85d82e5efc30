// What one run may call and spend, and the signed form a Lambda-deployed script carries to the resource-call
// function: HMAC-SHA256 over the claims, valid until the run's timeout (plus a grace) has passed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { UnauthorizedError } from '#platform/errors.js';

export const RunGrant = z.object({
  executionId: z.string().min(1),
  userId: z.string().min(1),
  scriptId: z.string().min(1),
  allowedResources: z.array(z.string()),
  /** USD the run may cost at most: min(maxCostPerExecution, what is left of the monthly budget). */
  limitUsd: z.number(),
  /** Which of the two sets limitUsd, so a refusal names the right code. */
  limitedBy: z.enum(['cost', 'budget']),
  memoryMb: z.number().int().positive(),
  /** Epoch ms; compute so far is priced from here. */
  startedAt: z.number(),
});
export type RunGrant = z.infer<typeof RunGrant>;

const SignedGrant = RunGrant.extend({ exp: z.number() });
export type SignedGrant = z.infer<typeof SignedGrant>;

/** Lambda's init phase and the invoke round trip come on top of the run's timeout. */
export const runGraceMs = 30_000;

const version = 'v1';
const mac = (key: Uint8Array, signed: string) => createHmac('sha256', key).update(signed).digest();

/** `v1.<claims as base64url JSON>.<base64url HMAC-SHA256 of "v1.<claims>">`. */
export function signGrant(grant: RunGrant, exp: number, key: Uint8Array): string {
  const claims = Buffer.from(JSON.stringify({ ...grant, exp })).toString('base64url');
  const signed = `${version}.${claims}`;
  return `${signed}.${mac(key, signed).toString('base64url')}`;
}

/** The token a run carries to the resource-call function: valid while the run may go on, plus Lambda's own overhead. */
export const runGrantToken = (grant: RunGrant, timeoutMs: number, key: Uint8Array): string => signGrant(grant, grant.startedAt + timeoutMs + runGraceMs, key);

/** The grant a token carries; UNAUTHORIZED for anything not signed with `key`, malformed, or past `exp`. */
export function verifyGrant(token: unknown, key: Uint8Array, nowMs: number): SignedGrant {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 3 || parts[0] !== version) throw new UnauthorizedError('the run grant is missing or malformed');
  const signed = `${parts[0]}.${parts[1]}`;
  const presented = Buffer.from(parts[2]!, 'base64url');
  const expected = mac(key, signed);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw new UnauthorizedError('the run grant is not signed by the platform');
  const parsed = SignedGrant.safeParse(JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')));
  if (!parsed.success) throw new UnauthorizedError('the run grant is malformed');
  if (parsed.data.exp <= nowMs) throw new UnauthorizedError('the run grant has expired: the run is over');
  return parsed.data;
}
