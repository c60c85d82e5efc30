// Inputs of the scripts area, REST and SDK shapes, validated at the edge.
import * as z from 'zod';
import { SubscribableEventType } from '#platform/event-types.js';
import { reviewFields } from '#functions/reviews/schemas.js';
import { BatchOptions, DebounceOptions } from '#platform/gathering.js';
import { JsonObject, OpaqueId, pagination } from '#platform/schemas.js';
import { DateBound, dateRange, ordered, orderedRange } from '#platform/date-range.js';
import { Semver, isSemver } from '#platform/semver.js';
import { InputSchema } from './authoring/input-schema.js';
import { KeyPath, flowControlFields } from '#platform/flow-control.js';
import { runKinds, statusWords } from './runs/run-record.js';
import { concurrencyScopes, limits, marketplaceCategories, maxPackageBytes, pricingModels, runtimeLabels, triggerTypes } from './model.js';

const ScriptId = OpaqueId;
const ExecutionId = OpaqueId;
const VersionId = OpaqueId;

const Code = z
  .string()
  .min(1, 'must not be empty')
  .refine((code) => Buffer.byteLength(code) <= maxPackageBytes, `must be at most ${maxPackageBytes} bytes`)
  .describe('The script source. With its installed dependencies up to 50 MB; one request body carries at most 6 MB (413 past it).');
const PackageName = z
  .string()
  .max(214)
  .regex(/^(@[a-z0-9~][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/, 'must be an npm package name');
const SemverRange = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\w.*^~<>=|+ -]+$/, 'must be a semver range (URLs, git, file: and npm: aliases are not installed)');
const Requirement = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._, -]*\])?\s*((===?|~=|!=|<=?|>=?)\s*[A-Za-z0-9.*+!_-]+\s*(,\s*(===?|~=|!=|<=?|>=?)\s*[A-Za-z0-9.*+!_-]+\s*)*)?$/,
    'must be a requirement such as requests==2.32.3 (options, URLs and paths are not installed)',
  );
/** A map of npm packages to semver ranges (node), or a list of pip requirements (python); `{}` / `[]` declares none. */
export const Dependencies = z
  .union([z.array(Requirement).max(100), z.record(PackageName, SemverRange).refine((map) => Object.keys(map).length <= 100, 'at most 100 packages')], {
    error: 'must be a map {"<package>": "<semver range>"} for node or a list of requirements for python',
  })
  .describe(
    'Packages the version imports: for node a map {"<package>": "<semver range>"}, for python a list of requirements (["requests==2.32.3"]). ' +
      'Resolved, installed (without install scripts; python wheels only, pure Python) and locked when the version is created; code and packages up to 50 MB. ' +
      "Left out, a new version keeps the previous version's; {} or [] declares none.",
  );
/** A package-lock.json (lockfileVersion 2 or 3) for node dependencies, installed exactly with `npm ci`. */
const Lockfile = z.string().min(1).max(2_000_000).describe('package-lock.json (lockfileVersion 2 or 3) of node dependencies, installed exactly with npm ci');
const packages = { dependencies: Dependencies.optional(), lockfile: Lockfile.optional() };

const Name = z.string().trim().min(1).max(100);
const Description = z.string().trim().max(2000);
const Tags = z.array(z.string().trim().min(1).max(50)).max(20);
const Category = z.string().trim().min(1).max(50);
const ResourceName = z.string().min(1).max(100);

const ConfigPatch = z.strictObject({
  timeout: z.number().int().min(limits.timeoutSeconds.min).max(limits.timeoutSeconds.max).optional(),
  memory: z.number().int().min(limits.memoryMb.min).max(limits.memoryMb.max).optional(),
  maxCostPerExecution: z.number().positive().max(1000).optional(),
  maxExecutionsPerDay: z.number().int().min(1).max(1_000_000).optional(),
  allowedResources: z.array(ResourceName).max(50).optional(),
  concurrency: z
    .strictObject({
      limit: z.number().int().min(1).max(limits.concurrentExecutionsPerScript),
      key: KeyPath,
      scope: z
        .enum(concurrencyScopes)
        .default('user')
        .describe("user (default): each user who runs the script has the key's values to themselves; global: every user's runs of a value share its limit"),
    })
    .nullable()
    .optional()
    .describe(
      "At most `limit` runs at once per value of `key` (a dotted path into the run's event.data, e.g. customerId), counted per user who runs the script unless scope is global; runs past it wait their turn; null removes it",
    ),
  debounce: DebounceOptions.nullable().optional(),
  batch: BatchOptions.nullable().optional(),
  durable: z.boolean().optional().describe('runs may checkpoint steps and wait: context.step, context.wait, context.waitForCallback'),
  inputSchema: InputSchema.optional(),
  ...flowControlFields,
});

const Pricing = z
  .strictObject({
    model: z.enum(pricingModels),
    basePrice: z.number().min(0).max(10_000).optional(),
    monthlyPrice: z.number().min(0).max(100_000).optional(),
    currency: z.string().min(1).max(10).optional(),
  })
  .refine((p) => p.model !== 'pay-per-execution' || (p.basePrice ?? 0) > 0, { message: 'pay-per-execution needs a basePrice above 0', path: ['basePrice'] })
  .refine((p) => p.model !== 'subscription' || (p.monthlyPrice ?? 0) > 0, { message: 'subscription needs a monthlyPrice above 0', path: ['monthlyPrice'] })
  .refine((p) => p.model !== 'free' || !p.basePrice, { message: 'a free script has no basePrice', path: ['basePrice'] });

export const CreateScriptInput = z.strictObject({
  name: Name,
  description: Description.optional(),
  runtime: z.enum(runtimeLabels).default('nodejs18'),
  code: Code,
  config: ConfigPatch.optional(),
  category: Category.optional(),
  tags: Tags.optional(),
  private: z.boolean().optional(),
  ...packages,
});

const byId = { scriptId: ScriptId };
export const ScriptIdInput = z.strictObject(byId);

export const UpdateScriptInput = z
  .strictObject({
    ...byId,
    name: Name.optional(),
    description: Description.optional(),
    config: ConfigPatch.optional(),
    tags: Tags.optional(),
    category: Category.optional(),
    private: z.boolean().optional(),
    code: Code.optional(),
    changelog: z.string().max(1000).optional(),
    ...packages,
  })
  .refine(({ scriptId: _id, changelog: _changelog, ...patch }) => Object.keys(patch).length > 0, { message: 'give at least one field to change' })
  .refine((patch) => patch.lockfile === undefined || patch.dependencies !== undefined, {
    message: 'a lockfile comes with the dependencies it locks',
    path: ['lockfile'],
  });

export const RestListScriptsInput = z.strictObject({ ...pagination(10), status: z.enum(['draft', 'deployed', 'published']).optional() });
export const SdkListScriptsInput = z.strictObject({});

const EventData = JsonObject;
export const RestExecuteInput = z.strictObject({ ...byId, data: EventData.default({}) });
export const SdkExecuteInput = z.strictObject({
  ...byId,
  data: EventData.default({}),
  trigger: z
    .strictObject({ type: z.enum(triggerTypes).default('manual'), source: z.string().max(200).optional(), event: z.unknown().optional() })
    .default({ type: 'manual' }),
});

export const RestCreateVersionInput = z.strictObject({ ...byId, code: Code, version: Semver, changelog: z.string().max(1000).optional(), ...packages });
export const SdkCreateVersionInput = z.strictObject({ ...byId, code: Code, commitMessage: z.string().max(1000).optional(), ...packages });

/** Without a versionId the latest version is deployed, as deployScript does without a version. */
export const RestDeployInput = z.strictObject({ ...byId, versionId: VersionId.optional() });
export const SdkDeployInput = z.strictObject({ ...byId, version: z.number().int().min(1).optional() });

export const RestExecutionsInput = z
  .strictObject({ ...byId, ...pagination(10), status: z.enum(['success', 'error', 'timeout']).optional(), ...dateRange })
  .refine(ordered, orderedRange);
export const SdkExecutionsInput = z
  .strictObject({ ...byId, ...pagination(100), status: z.enum(['completed', 'failed', 'running']).optional(), ...dateRange })
  .refine(ordered, orderedRange);
export const ExecutionIdInput = z.strictObject({ executionId: ExecutionId });
/** Which page of a durable run's steps a run's record carries. */
const StepsPaging = {
  stepsLimit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(100)
    .describe("at most this many of a durable run's steps (the answer also stops at about 4 MB of results)"),
  stepsCursor: z
    .string()
    .regex(/^\d{1,20}$/, 'the stepsNextCursor of an earlier answer')
    .optional()
    .describe('the `stepsNextCursor` of the previous answer: the steps after those it held'),
};
export const GetExecutionInput = z.strictObject({ executionId: ExecutionId, ...StepsPaging });
/** GET /api/sdk/v1/executions/{executionId}: any run of the caller, of a script or of a flow. */
export const GetRunInput = GetExecutionInput;
/** The largest `offset` of the runs list: past it a page would read more runs than a request may. */
export const maxRunsOffset = 10_000;
/** GET /api/sdk/v1/executions: filters of the runs list; every status word of every vocabulary; dates are days (UTC) or instants. */
export const ListRunsInput = z
  .strictObject({
    kind: z.enum(runKinds).optional(),
    status: z.enum(Object.keys(statusWords) as [string, ...string[]]).optional(),
    trigger: z.enum(triggerTypes).optional(),
    scriptId: ScriptId.optional(),
    flowId: OpaqueId.optional(),
    parentExecutionId: ExecutionId.optional().describe("only the runs this run started (a flow run's script run, an invoked child)"),
    topLevel: z
      .enum(['true', 'false'])
      .optional()
      .describe("`true`: only the runs no other run started (a flow's trigger is one run, its script run its child)"),
    ...dateRange,
    from: DateBound(false).optional().describe('the same as startDate'),
    to: DateBound(true).optional().describe('the same as endDate'),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(maxRunsOffset).default(0),
  })
  .refine((query) => ordered({ startDate: query.from ?? query.startDate, endDate: query.to ?? query.endDate }), orderedRange);
/** Long-poll bounds of following a run's logs: API Gateway stops waiting at 30 s. */
export const maxFollowWaitSeconds = 20;
export const FollowLogsInput = z.strictObject({
  executionId: ExecutionId,
  after: z.coerce.number().int().min(0).max(1_000_000).default(0).describe('lines already read: the `next` of the previous answer'),
  wait: z.coerce.number().int().min(0).max(maxFollowWaitSeconds).default(0).describe('seconds to wait for new lines or the end of the run (long poll)'),
});
export const RunEventsInput = z.strictObject({
  executionId: ExecutionId,
  lastEventId: z
    .string()
    .max(64)
    .optional()
    .describe("resume after this event's id, for clients that cannot send the Last-Event-ID header (which wins when both are given)"),
});
export const RestExecutionInput = z.strictObject({ ...byId, executionId: ExecutionId, ...StepsPaging });
/** A version by its number (`3`, as the SDK names it) or its semantic version (`1.0.2`, as REST names it). */
const VersionSelector = z
  .string()
  .max(256)
  .refine((value) => /^[1-9]\d{0,8}$/.test(value) || isSemver(value), 'must be a version number (3) or a semantic version (1.0.2)')
  .transform((value) => (/^\d+$/.test(value) ? Number(value) : value))
  .describe('the version number (3) or its semantic version (1.0.2)');
export const ScriptCodeInput = z.strictObject({ ...byId, version: VersionSelector });

export const RestPublishInput = z.strictObject({ ...byId, pricing: Pricing.optional(), category: Category.optional(), tags: Tags.optional() });
export const SdkPublishInput = RestPublishInput;

/** API Gateway joins repeated query parameters with commas; both `tags=a,b` and `tags=a&tags=b` arrive as `a,b`. */
const QueryList = z.preprocess((value) => (typeof value === 'string' ? value.split(',').filter(Boolean) : value), z.array(z.string().min(1).max(50)).max(20));

export const RestMarketplaceInput = z.strictObject({
  ...pagination(10),
  category: Category.optional(),
  tags: QueryList.optional(),
  search: z.string().max(200).optional(),
});
export const SdkMarketplaceInput = z.strictObject({
  name: z.string().max(100).optional(),
  system: z.boolean().optional(),
  search: z.string().max(200).optional(),
  tags: z.array(z.string().min(1).max(50)).max(20).optional(),
  category: z.enum(marketplaceCategories).optional(),
  pricingModel: z.enum(pricingModels).optional(),
  staffPick: z.boolean().optional(),
  minRating: z.number().min(0).max(5).optional(),
  requiredIntegrations: z.array(ResourceName).max(20).optional(),
  sortBy: z.enum(['rating', 'installCount', 'trendingScore', 'publishedAt', 'name']).default('rating'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  limit: z.number().int().min(1).max(100).default(50),
  offset: z.number().int().min(0).default(0),
});
export type MarketplaceQuery = z.output<typeof SdkMarketplaceInput>;

const FlowId = z.string().trim().min(1).max(100);
export const GetFlowScriptInput = z.strictObject({ flowId: FlowId });
export const ModifyFlowScriptInput = z.strictObject({ flowId: FlowId, newCode: Code, commitMessage: z.string().max(1000).optional() });

export const fieldTypes = ['string', 'number', 'boolean', 'object', 'array'] as const;
export const LintInput = z.strictObject({
  code: Code,
  runtime: z.enum(runtimeLabels).optional(),
  eventType: SubscribableEventType.optional(),
  scriptInputSchema: z.record(z.string().min(1).max(100), z.strictObject({ type: z.enum(fieldTypes) })).optional(),
  scriptId: ScriptId.optional(),
  /** Declared already: suggestions leave these out. */
  dependencies: Dependencies.optional(),
});
export type LintRequest = z.output<typeof LintInput>;

export const ReviewInput = z.strictObject({ ...byId, ...reviewFields });
export const ListReviewsInput = z.strictObject({ ...byId, ...pagination(10) });

export const Ecosystem = z.enum(['npm', 'pypi']);
export const SetRegistryInput = z.strictObject({
  ecosystem: Ecosystem,
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(500)
    .refine((url) => !new URL(url).username && !new URL(url).password, 'must not carry credentials: give them as token'),
  token: z
    .string()
    .min(1)
    .max(4000)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
});
export const ClearRegistryInput = z.strictObject({ ecosystem: Ecosystem });
export const ListRegistriesInput = z.strictObject({});

/** How a wait on a callback ends: `result` for the code, or `error` it throws; exactly one of them. */
const callbackOutcome = {
  result: z.unknown().optional(),
  error: z.strictObject({ code: z.string().trim().min(1).max(64).default('CALLBACK_ERROR'), message: z.string().max(20_000) }).optional(),
};
const oneOutcome = (input: { result?: unknown; error?: unknown }, context: z.core.$RefinementCtx) => {
  if ((input.result === undefined) === (input.error === undefined))
    context.addIssue({ code: 'custom', path: ['result'], message: 'give exactly one of result and error', input: input.result });
};
const CallbackId = z.string().regex(/^cb_[A-Za-z0-9]{1,64}$/, 'a callbackId as waitForCallback handed it out');
export const CompleteCallbackInput = z.strictObject({ executionId: ExecutionId, callbackId: CallbackId, ...callbackOutcome }).superRefine(oneOutcome);
export const CompleteSignedCallbackInput = z
  .strictObject({ executionId: ExecutionId, callbackId: CallbackId, token: z.string().min(1).max(200), ...callbackOutcome })
  .superRefine(oneOutcome);
export const RerunInput = z.strictObject({ executionId: ExecutionId, fromStep: z.string().min(1).max(200).optional() });
export const ReplayInput = z
  .strictObject({
    scriptId: z.string().min(1).max(200).optional().describe("replay this script's runs (exactly one of scriptId and flowId)"),
    flowId: z.string().min(1).max(200).optional().describe("replay this flow's executions with their stored trigger data"),
    status: z.enum(['success', 'error', 'timeout', 'cancelled', 'completed', 'failed']).optional(),
    from: DateBound(false).optional().describe('only runs started at or after this (ISO 8601, or a whole day from its start)'),
    to: DateBound(true).optional().describe('only runs started at or before this (ISO 8601, or a whole day through its end); not before from'),
  })
  .superRefine((input, context) => {
    if ((input.scriptId === undefined) === (input.flowId === undefined))
      context.addIssue({ code: 'custom', path: ['scriptId'], message: 'give exactly one of scriptId and flowId', input: input.scriptId });
    if (!ordered({ startDate: input.from, endDate: input.to }))
      context.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from', input: input.to });
  });

/** A durable wait's length, `{seconds|minutes|hours|days}`: the approvals and events areas take it for their waits' timeouts. */
export { Duration } from '../durable/schemas.js';
