// zod schemas of the templates area: the inputs of the interface's Templates table and of template.json.
import * as z from 'zod';
import { reviewFields } from '#functions/reviews/schemas.js';
import { OpaqueId, pagination } from '#platform/schemas.js';
import { Semver } from '#platform/semver.js';

const TemplateId = OpaqueId;
const byId = { templateId: TemplateId };

/** A full commit id (SHA-1, or SHA-256 repositories): the builder fetches exactly that commit, never a moving name. */
export const GitHash = z.string().regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/, 'must be a full commit id: 40 (or 64) lower-case hex characters');

/** https everywhere; file:// only in local mode (checked by the service, which knows the mode). */
export const Repository = z
  .string()
  .max(2000)
  .refine((value) => /^(https:\/\/[^\s@]+|file:\/\/\/[^\s]+)$/.test(value), 'must be an https:// or file:/// repository URL without credentials');

/** A relative folder inside the checkout: no absolute path, no `..` segment (symlinks are checked after checkout). */
export const RelativePath = z
  .string()
  .max(500)
  .refine(
    (value) => !value.startsWith('/') && !value.includes('\\') && !value.split('/').includes('..') && !value.includes('\0'),
    'must be a relative path inside the repository, without ..',
  );

const Tags = z.array(z.string().trim().min(1).max(40)).max(20);
const Category = z.string().trim().min(1).max(60);

export const CreateTemplateInput = z.strictObject({
  repository: Repository,
  templatePath: RelativePath.default('.'),
  gitHash: GitHash,
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).default(''),
  version: Semver.default('1.0.0'),
  category: Category.optional(),
  tags: Tags.default([]),
});
export type CreateTemplateInput = z.output<typeof CreateTemplateInput>;

export const UpdateTemplateInput = z.strictObject({
  ...byId,
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().trim().max(2000).optional(),
  category: Category.optional(),
  tags: Tags.optional(),
});
export type UpdateTemplateInput = z.output<typeof UpdateTemplateInput>;

export const TemplateIdInput = z.strictObject(byId);
export const BuildInput = z.strictObject({
  ...byId,
  version: Semver.optional(),
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(120)
    .optional()
    .describe('seconds to wait for the end before answering with buildStatus building (at most the platform bound: 25 on AWS)'),
});
/** `wait`: seconds to hold the answer while the build runs (a long poll, below API Gateway's 30 s). */
export const BuildIdInput = z.strictObject({ ...byId, buildId: OpaqueId, wait: z.coerce.number().int().min(0).max(25).default(0) });
export const CreateVersionInput = z.strictObject({ ...byId, version: Semver, gitHash: GitHash, changelog: z.string().max(2000).optional() });

const Fee = z.number().min(0).max(1_000_000);
export const TemplatePricing = z.strictObject({
  setupFee: Fee,
  monthlyFee: Fee,
  estimatedUsageCost: z.strictObject({
    perUse: Fee,
    perMonth: Fee,
    breakdown: z.strictObject({ scripts: Fee, resources: Fee }),
  }),
  currency: z.literal('USDC').default('USDC'),
});
export type TemplatePricing = z.output<typeof TemplatePricing>;
export const PublishInput = z.strictObject({ ...byId, pricing: TemplatePricing });

/** Values are checked against the template's fields by the service (customization.ts); here only their shape is bounded. */
export const CustomizationValues = z
  .record(z.string().max(100), z.union([z.string().max(2000), z.number(), z.boolean()]))
  .refine((values) => Object.keys(values).length <= 100, 'at most 100 customization values');
export const InstallInput = z.strictObject({ ...byId, customization: CustomizationValues.default({}) });

export const ListTemplatesInput = z.object({ status: z.enum(['draft', 'published']).optional(), ...pagination(10) });

const TagsQuery = z.preprocess(
  (value) =>
    value === undefined
      ? undefined
      : (Array.isArray(value) ? value : [value])
          .flatMap((tag) => String(tag).split(','))
          .map((tag) => tag.trim())
          .filter(Boolean),
  z.array(z.string().max(40)).max(20).optional(),
);
export const MarketplaceInput = z.object({
  category: z.string().max(60).optional(),
  tags: TagsQuery,
  search: z.string().max(200).optional(),
  ...pagination(10),
});

export const InstallationIdInput = z.strictObject({ installationId: OpaqueId });
export const ListInstallationsInput = z.object(pagination(10));
export const UpgradeInput = z.strictObject({ installationId: OpaqueId, version: Semver.optional() });

export const ReviewInput = z.strictObject({ ...byId, ...reviewFields });
export const ListReviewsInput = z.object({ ...byId, ...pagination(10) });

// template.json. Keys are dotted identifiers so that each maps to one NEXT_PUBLIC_ name.
const FieldKey = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9_]*(\.[a-zA-Z][a-zA-Z0-9_]*)*$/, 'must be a dotted identifier such as theme.primaryColor')
  .max(100);
const fieldBase = { key: FieldKey, label: z.string().max(200).optional(), description: z.string().max(1000).optional() };
const hexColor = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

export const CustomizationField = z.discriminatedUnion('type', [
  z.strictObject({
    ...fieldBase,
    type: z.literal('color'),
    default: z.string().regex(hexColor, 'must be a hex color such as #1a2b3c'),
    // A pattern from a repository is hostile input: it is not compiled; values are checked against the hex color rule.
    validation: z.strictObject({ pattern: z.string().max(200).optional() }).optional(),
  }),
  z.strictObject({
    ...fieldBase,
    type: z.literal('number'),
    default: z.number(),
    min: z.number().optional(),
    max: z.number().optional(),
    step: z.number().positive().optional(),
  }),
  z.strictObject({ ...fieldBase, type: z.literal('boolean'), default: z.boolean() }),
  z.strictObject({ ...fieldBase, type: z.literal('string'), default: z.string().max(2000), maxLength: z.number().int().min(1).max(2000).optional() }),
  z.strictObject({ ...fieldBase, type: z.literal('select'), default: z.string().max(200), options: z.array(z.string().max(200)).min(1).max(100) }),
]);
export type CustomizationField = z.output<typeof CustomizationField>;

const EnvName = z.string().regex(/^[A-Z_][A-Z0-9_]{0,99}$/, 'must be an environment variable name (upper case, digits, _)');

export const TemplateManifest = z.object({
  name: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  build: z.strictObject({
    buildCommand: z.string().min(1).max(2000),
    outputDirectory: RelativePath,
    environmentVariables: z
      .record(EnvName, z.string().max(4000))
      .refine((env) => Object.keys(env).length <= 100, 'at most 100 variables')
      .default({}),
  }),
  customization: z.array(CustomizationField).max(100).default([]),
  dependencies: z
    .strictObject({ scripts: z.array(OpaqueId).max(50).default([]), resources: z.array(OpaqueId).max(50).default([]) })
    .default({ scripts: [], resources: [] }),
});
export type TemplateManifest = z.output<typeof TemplateManifest>;
