// Inputs of the flow operations and the shapes of their answers, for the OpenAPI document.
import * as z from 'zod';
import { documentConditionTree } from '#functions/events/api.js';
import { SubscribableEventType } from '#platform/event-types.js';
import { CostUsd, DurationMs, IsoDate, componentRef } from '#platform/schemas.js';
import { flowDialect } from './conditions.js';
import { executionTypes, flowLimits, flowScopes, flowStatuses } from './model.js';

const FlowId = z.string().trim().min(1).max(100);
const Title = z.string().trim().min(1).max(flowLimits.titleLength);
const Description = z.string().trim().min(1).max(flowLimits.descriptionLength);
const Prompt = z.string().trim().min(1).max(flowLimits.promptLength);
// parseCron names the offending cron field and value; the schema only insists on a string.
const Schedule = z.string().max(200);
/** Writes name the cron `schedule`; reads return it as `cronExpression`, which writes take as the same thing. */
const ScheduleFields = {
  schedule: Schedule.optional().describe('cron, 5 fields, UTC'),
  cronExpression: Schedule.optional().describe('the same as schedule, as reads name it'),
};

function namesOneSchedule(required: boolean) {
  return (input: { schedule?: string; cronExpression?: string }, ctx: z.RefinementCtx) => {
    if (required && input.schedule === undefined && input.cronExpression === undefined)
      ctx.addIssue({ code: 'custom', path: ['schedule'], message: 'schedule (or cronExpression: the cron, 5 fields, UTC) is required' });
    else if (input.schedule !== undefined && input.cronExpression !== undefined && input.schedule !== input.cronExpression)
      ctx.addIssue({ code: 'custom', path: ['cronExpression'], input: input.cronExpression, message: 'schedule and cronExpression differ: give one of them' });
  };
}

const asSchedule = <T extends { schedule?: string; cronExpression?: string }>({ cronExpression, ...rest }: T) => ({
  ...rest,
  schedule: rest.schedule ?? cronExpression,
});
const ScriptId = z.string().trim().min(1).max(100);
const Scope = z.enum(flowScopes);
/** A resource (`name` or `name.method`, by name or id) or a script (id or name) the model may use. */
const RecommendedTools = z.array(z.string().trim().min(1).max(200)).max(flowLimits.recommendedTools);
/** Tool names as the flow's tool catalog gives them to the model (`<resource>__<method>`, `script__<name>`). */
const ApprovalRequired = z
  .array(z.string().min(1).max(200))
  .max(flowLimits.approvalRequired)
  .describe("llm flows: the tools (as the flow's tool catalog names them) whose every call waits for the owner's approval");
/** Remote MCP servers (Streamable HTTP) whose tools the model is offered, reached through the outbound guard. */
const McpServers = z
  .array(
    z.strictObject({
      url: z.url({ protocol: /^https?$/ }).max(2000),
      allowedTools: z.array(z.string().min(1).max(128)).max(flowLimits.recommendedTools).optional(),
    }),
  )
  .max(flowLimits.mcpServers)
  .describe('llm flows: remote MCP servers whose tools (or those allowedTools names) the model is offered, named mcp_<host>__<tool>');
const ApprovalAboveUsd = z.number().finite().min(0).describe("llm flows: a paid resource call priced above this (USD) waits for the owner's approval");
documentConditionTree(
  'FlowCondition',
  flowDialect(''),
  "A node of a flow's condition tree: a group {operator: AND | OR, conditions: node[]} or a leaf {field, operator, value}. Operators take both spellings (startsWith or starts_with); contains is case-insensitive; exists takes true or false; an empty root group matches every event of the type.",
);
const ConditionTree = componentRef('FlowCondition');

/** The condition engine checks the tree (operators, values, depth, count, sizes) with the flow's event type. */
const Conditions = z
  .unknown()
  .refine((value) => value !== undefined, 'conditions is required')
  .meta(ConditionTree);

/**
 * The interface names a script for every time flow. Without `executionType` it is `direct` (runs the script), unless a
 * `prompt` is given: then it is the interface's default `llm`, and the model is offered the script as a tool.
 */
export const CreateTimeFlowInput = z
  .strictObject({
    title: Title,
    description: Description,
    ...ScheduleFields,
    scriptId: ScriptId,
    scope: Scope.default('user'),
    executionType: z.enum(executionTypes).optional(),
    prompt: Prompt.optional(),
    recommendedTools: RecommendedTools.optional(),
    approvalRequired: ApprovalRequired.optional(),
    approvalAboveUsd: ApprovalAboveUsd.optional(),
    mcpServers: McpServers.optional(),
  })
  .superRefine(namesOneSchedule(true))
  .transform((input) => {
    const { schedule, ...rest } = asSchedule(input);
    return { ...rest, schedule: schedule as string };
  });

export const CreateEventFlowInput = z.strictObject({
  title: Title,
  description: Description,
  eventType: SubscribableEventType,
  conditions: Conditions,
  prompt: Prompt.optional().describe('required for llm flows; a direct flow runs its script and may leave it out'),
  recommendedTools: RecommendedTools.default([]),
  approvalRequired: ApprovalRequired.optional(),
  approvalAboveUsd: ApprovalAboveUsd.optional(),
  mcpServers: McpServers.optional(),
  scope: Scope.default('user'),
  executionType: z.enum(executionTypes).default('llm'),
  scriptId: ScriptId.optional(),
});

/** A flow is named by `assignmentId` in the flow operations; `flowId` (the record's `id`) is accepted as the same thing. */
const FlowRef = { assignmentId: FlowId.optional().describe("the flow's id"), flowId: FlowId.optional().describe('the same as assignmentId') };

function namesOneFlow(input: { assignmentId?: string; flowId?: string }, ctx: z.RefinementCtx) {
  if (input.assignmentId === undefined && input.flowId === undefined)
    ctx.addIssue({ code: 'custom', path: ['assignmentId'], message: "assignmentId (or flowId: the flow's id) is required" });
  else if (input.assignmentId !== undefined && input.flowId !== undefined && input.assignmentId !== input.flowId)
    ctx.addIssue({ code: 'custom', path: ['flowId'], input: input.flowId, message: 'assignmentId and flowId name different flows: give one of them' });
}

const asAssignment = <T extends { assignmentId?: string; flowId?: string }>({ flowId, ...rest }: T) => ({
  ...rest,
  assignmentId: (rest.assignmentId ?? flowId) as string,
});

export const AssignmentInput = z.strictObject(FlowRef).superRefine(namesOneFlow).transform(asAssignment);

export const UpdateFlowInput = z
  .strictObject({
    ...FlowRef,
    title: Title.optional(),
    description: Description.optional(),
    ...ScheduleFields,
    prompt: Prompt.optional(),
    recommendedTools: RecommendedTools.optional(),
    approvalRequired: ApprovalRequired.optional(),
    approvalAboveUsd: ApprovalAboveUsd.nullable().optional().describe('null removes the threshold'),
    mcpServers: McpServers.optional(),
    conditions: z.unknown().meta(ConditionTree).optional(),
  })
  .refine((input) => Object.keys(input).some((key) => key !== 'assignmentId' && key !== 'flowId' && input[key as keyof typeof input] !== undefined), {
    message: 'give at least one of title, description, schedule, prompt, recommendedTools, approvalRequired, approvalAboveUsd, mcpServers, conditions',
  })
  .superRefine(namesOneFlow)
  .superRefine(namesOneSchedule(false))
  .transform((input) => asSchedule(asAssignment(input)));

const TriggerFilter = z.strictObject({
  type: z.enum(['time', 'event']).optional(),
  eventType: z.string().max(100).optional(),
  cronExpression: z.string().max(200).optional(),
});

/** Both variants of searchFlows; variant B when any of `query`, `trigger`, `scope` is given. */
export const SearchFlowsInput = z
  .strictObject({
    status: z.enum(flowStatuses).optional(),
    triggerType: z.enum(['time', 'event']).optional(),
    detail: z.enum(['minimal', 'summary']).optional(),
    query: z.string().max(200).optional(),
    trigger: TriggerFilter.optional(),
    scope: Scope.optional(),
    limit: z.coerce.number().int().min(1).max(100).optional(),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .superRefine((input, context) => {
    if (input.query === undefined && input.trigger === undefined && input.scope === undefined) return;
    for (const field of ['detail', 'triggerType'] as const) {
      if (input[field] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} belongs to the variant without query, trigger and scope; with those, filter by trigger.type`,
        });
      }
    }
  });
export type SearchFlowsInput = z.output<typeof SearchFlowsInput>;

const Trigger = z.union([
  z.object({ type: z.literal('time'), config: z.object({ cronExpression: z.string() }) }),
  z.object({ type: z.literal('event'), config: z.object({ eventType: z.string(), rootCondition: z.unknown().meta(ConditionTree) }) }),
]);

const Warnings = z
  .array(z.string())
  .describe('what keeps the flow from running as asked, e.g. an llm flow while no language model is configured; empty when nothing does');

export const ExecutionResultOutput = z.object({
  executionId: z.string(),
  timestamp: IsoDate,
  status: z
    .enum(['success', 'failed', 'waiting'])
    .describe("waiting: an llm flow's tool call waits for its approval, or a direct flow's durable script waits; the execution settles when the run ends"),
  duration: DurationMs,
  cost: CostUsd,
  logs: z.array(z.string()).describe("the run's log lines, of every invocation, in order"),
  logLines: z
    .array(z.object({ text: z.string(), invocation: z.number().int() }))
    .describe('the same lines with the invocation that printed each (1 for the first, 2 after the run continued from a wait, ...)'),
  result: z.unknown(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export const FlowOutput = z.object({
  id: z.string(),
  userId: z.string(),
  title: z.string(),
  description: z.string(),
  status: z.enum(flowStatuses),
  scope: Scope,
  trigger: Trigger,
  scriptId: z.string().nullable(),
  executionType: z.enum(executionTypes),
  prompt: z.string().nullable(),
  recommendedTools: z.array(z.string()),
  approvalRequired: z.array(z.string()),
  approvalAboveUsd: z.number().nullable(),
  mcpServers: z.array(z.object({ url: z.string(), allowedTools: z.array(z.string()).optional() })),
  executionCount: z.number(),
  executionResults: z.array(ExecutionResultOutput),
  lastExecutedAt: IsoDate.nullable(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
  pausedAt: IsoDate.nullable(),
  resumedAt: IsoDate.nullable(),
  warnings: Warnings,
});

export const UpdatedFlow = z.object({ id: z.string(), title: z.string(), description: z.string(), trigger: Trigger, updatedAt: IsoDate });
export const PausedFlow = z.object({ id: z.string(), status: z.literal('paused'), pausedAt: IsoDate });
export const ResumedFlow = z.object({ id: z.string(), status: z.literal('active'), resumedAt: IsoDate });
export const DeletedFlow = z.object({ id: z.string(), deleted: z.literal(true), deletedAt: IsoDate });

const MinimalItem = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(flowStatuses),
  triggerType: z.enum(['time', 'event']),
  isActive: z.boolean(),
});
const SummaryItem = MinimalItem.extend({
  description: z.string(),
  cronExpression: z.string().nullable(),
  scriptId: z.string().nullable(),
  executionCount: z.number(),
  lastExecutedAt: IsoDate.nullable(),
  createdAt: IsoDate,
  warnings: Warnings,
});
const VariantBItem = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  status: z.enum(flowStatuses),
  trigger: Trigger,
  executionCount: z.number(),
  lastExecutedAt: IsoDate.nullable(),
  warnings: Warnings,
});
/** Variant A's `data`; variant B answers an array of VariantBItem with `meta {total, limit, offset}` beside `data`. */
export const SearchFlowsOutput = z.union([z.object({ count: z.number(), flows: z.array(z.union([SummaryItem, MinimalItem])) }), z.array(VariantBItem)]);
