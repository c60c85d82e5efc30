import * as z from 'zod';
import { Duration } from '#functions/scripts/schemas.js';
import { IsoDate, OpaqueId, pagination } from '#platform/schemas.js';

export const approvalStatuses = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;
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
  allowReuse: z.boolean().optional().describe('the approver let a re-run from a later step reuse this decision'),
  cancelReason: z.string().optional().describe('why a cancelled approval can no longer be decided (its run ended)'),
});
export type Approval = z.infer<typeof Approval>;

/** An approval read through its signed link: whom the link acts for, and the name of the script that asks. */
export const SignedApproval = Approval.extend({ approver: Approval.shape.decidedBy.unwrap(), scriptName: z.string().optional() });

export const ApprovalList = z.object({ approvals: z.array(Approval), count: z.number().int() });

/** What the waiting run gets back: a reject is an answer, not an error. */
export const ApprovalOutcome = z.object({
  decision: z.enum(decisions),
  by: z.string().describe('username of the approver'),
  comment: z.string().nullable(),
  decidedAt: IsoDate,
  allowReuse: z.literal(true).optional().describe('present when the approver let re-runs reuse this decision'),
});
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

const Comment = z.string().max(2000);
const Token = z.string().min(1).max(200);

/** A page is one Query of the inbox: the offset is bounded as that read is. */
export const maxListOffset = 1000;
export const ListApprovalsInput = z.object({ ...pagination(50), offset: z.coerce.number().int().min(0).max(maxListOffset).default(0) });
/** By default a decision holds for its run only: a re-run or replay that reaches the approval asks again. */
const AllowReuse = z
  .boolean()
  .default(false)
  .describe('true lets a re-run of this run from a later step reuse this decision instead of asking again (default false)');
const Decided = { decision: z.enum(decisions), comment: Comment.optional(), allowReuse: AllowReuse };
export const DecideApprovalInput = z.strictObject({ approvalId: OpaqueId, ...Decided });
export const SignedApprovalInput = z.object({ approvalId: OpaqueId, token: Token });
export const SignedDecisionInput = z.strictObject({ approvalId: OpaqueId, token: Token, ...Decided });

/** Limits of a request made by a run's code (checked there, so the code gets VALIDATION_ERROR at the call). */
export const maxApprovers = 20;
export const maxMessageLength = 4000;
export const defaultApprovalSeconds = 7 * 24 * 3600;
/** Pending approvals one requester may have in the inbox of another user (the requester's own inbox is not bounded). */
export const maxPendingPerRequester = 20;

/** `waitForApproval(name, {approvers, message, timeout})`: timeout as every durable wait takes it, up to a year. */
export const ApprovalRequestInput = z.strictObject({
  approvers: z.array(z.string().min(1).max(200)).min(1).max(maxApprovers).optional(),
  message: z.string().max(maxMessageLength).default(''),
  timeout: Duration.default(defaultApprovalSeconds),
});
