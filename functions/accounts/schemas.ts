import * as z from 'zod';
import { IsoDate, OpaqueId, SolanaAddress, pagination } from '#platform/schemas.js';

import { baseScopes, objectScopePatterns } from '#platform/scopes.js';

export const Scope = z.string().refine((s) => (baseScopes as readonly string[]).includes(s) || objectScopePatterns.some((pattern) => pattern.test(s)), {
  message: `must be one of ${baseScopes.join(', ')}, resources:<resourceId>:call or scripts:<scriptId>:execute`,
});

export const Username = z
  .string()
  .min(3)
  .max(40)
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'letters, digits, _ . - only, starting with a letter or digit');

export const MonthlyBudgetUsd = z.number().min(0).max(1_000_000);

export const CreateUserInput = z.strictObject({
  username: Username,
  walletAddress: SolanaAddress.optional(),
});

export const UpdateMeInput = z
  .strictObject({
    username: Username.optional(),
    walletAddress: SolanaAddress.nullable().optional(),
    monthlyBudgetUsd: MonthlyBudgetUsd.optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of username, walletAddress, monthlyBudgetUsd' });

/** An agent's budget on a key: USD it may pay per UTC day, and above which price a paid call waits for the owner's approval. */
export const maxAgentBudgetUsd = 10_000;
const SpendLimitUsd = z.number().positive().max(maxAgentBudgetUsd);
const ApprovalAboveUsd = z.number().min(0).max(maxAgentBudgetUsd);
export const KeyBudget = { spendLimitUsd: SpendLimitUsd.optional(), approvalAboveUsd: ApprovalAboveUsd.optional() };

export const CreateKeyInput = z.strictObject({
  name: z.string().min(1).max(100),
  scopes: z.array(Scope).min(1).max(20).default(['*']),
  ...KeyBudget,
});

/** null removes a limit. */
export const UpdateKeyInput = z
  .strictObject({ keyId: OpaqueId, spendLimitUsd: SpendLimitUsd.nullable().optional(), approvalAboveUsd: ApprovalAboveUsd.nullable().optional() })
  .refine((input) => input.spendLimitUsd !== undefined || input.approvalAboveUsd !== undefined, {
    message: 'give spendLimitUsd or approvalAboveUsd (null removes it)',
    path: ['spendLimitUsd'],
  });

export const ListKeysInput = z.object(pagination(10));

export const KeyIdInput = z.object({ keyId: OpaqueId });

export const User = z.object({
  userId: z.string(),
  username: z.string(),
  walletAddress: z.string().nullable(),
  monthlyBudgetUsd: z.number(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type User = z.infer<typeof User>;

export const CreatedUser = z.object({ userId: z.string(), username: z.string(), apiKey: z.string() });

export const ApiKeyRecord = z.object({
  keyId: z.string(),
  /** `api`: an API key; `oauth`: an OAuth client's grant (its name is the client's), revoked the same way. */
  kind: z.enum(['api', 'oauth']),
  name: z.string(),
  scopes: z.array(z.string()),
  prefix: z.string(),
  createdAt: IsoDate,
  lastUsedAt: IsoDate.nullable(),
  revokedAt: IsoDate.nullable(),
  /** The OAuth client holding the grant. */
  clientId: z.string().optional(),
  spendLimitUsd: z.number().optional().describe('USD the key may pay per UTC day in paid calls'),
  approvalAboveUsd: z.number().optional().describe("a paid call above this price waits for the owner's approval"),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

export const CreatedKey = z.object({
  keyId: z.string(),
  apiKey: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  createdAt: IsoDate,
  ...KeyBudget,
});

export const KeyList = z.object({ keys: z.array(ApiKeyRecord), total: z.number(), limit: z.number(), offset: z.number() });
