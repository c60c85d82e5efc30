import * as z from 'zod';
import { Duration } from '#functions/scripts/schemas.js';
import { IsoDate, OpaqueId, pagination } from '#platform/schemas.js';

export const approvalStatuses = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof approvalStatuses)[number];
export const decisions = ['approve', 'reject'] as const;
export type Decision = (typeof decisions)[number];

const Approver = z.object({ userId: z.string(), username: z.string() });

export const Approval = z.object({
  approvalId: z.string(),
  executionId: z.string(),
  scriptId: z.string(),
  flowId: z.string().optional(),
  name: z.string(),
  message: z.string(),
  approvers: z.array(Approver),
  requestedAt: IsoDate,
  expiresAt: IsoDate,
  status: z.enum(approvalStatuses),
  decision: z.enum(decisions).optional(),
  decidedBy: z.string().optional().describe('username of the approver who decided'),
  comment: z.string().optional(),
  decidedAt: IsoDate.optional(),
});
export type Approval = z.infer<typeof Approval>;

export const ApprovalList = z.object({ approvals: z.array(Approval), count: z.number().int() });

/** What the waiting run gets back: a reject is an answer, not an error. */
export const ApprovalOutcome = z.object({
  decision: z.enum(decisions),
  by: z.string().describe('username of the approver'),
  comment: z.string().nullable(),
  decidedAt: IsoDate,
});
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

const Comment = z.string().max(2000);
const Token = z.string().min(1).max(200);

export const ListApprovalsInput = z.object(pagination(50));
export const DecideApprovalInput = z.strictObject({ approvalId: OpaqueId, decision: z.enum(decisions), comment: Comment.optional() });
export const SignedApprovalInput = z.object({ approvalId: OpaqueId, token: Token });
export const SignedDecisionInput = z.strictObject({ approvalId: OpaqueId, token: Token, decision: z.enum(decisions), comment: Comment.optional() });

/** Limits of a request made by a run's code (checked there, so the code gets VALIDATION_ERROR at the call). */
export const maxApprovers = 20;
export const maxMessageLength = 4000;
export const defaultApprovalSeconds = 7 * 24 * 3600;

/** `waitForApproval(name, {approvers, message, timeout})`: timeout as every durable wait takes it, up to a year. */
export const ApprovalRequestInput = z.strictObject({
  approvers: z.array(z.string().min(1).max(200)).min(1).max(maxApprovers).optional(),
  message: z.string().max(maxMessageLength).default(''),
  timeout: Duration.default(defaultApprovalSeconds),
});
