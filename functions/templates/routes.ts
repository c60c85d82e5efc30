// The interface's Templates table, plus a single read, versions list, build reads, reviews, and the caller's template
// installations (list, read, uninstall, upgrade).
import * as z from 'zod';
import { Review, ReviewList } from '#functions/reviews/schemas.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import { type TableAccess, defineRoutes } from '#platform/route.js';
import { IsoDate, Message } from '#platform/schemas.js';
import type { TableName } from '#platform/table-definition.js';
import * as input from './schemas.js';

/** Changing templates takes a full key (`*`), or `templates:manage` once keys can hold it; installing takes `templates:install`. */
const manage = ['templates:manage'];
const install = ['templates:install'];

type Tables = Partial<Record<TableName, TableAccess>>;
const read: Tables = { templates: 'read', templateVersions: 'read', templateInstallations: 'read' };
const edit: Tables = { templates: 'write', templateVersions: 'write', templateInstallations: 'read', templateSites: 'write' };
const builds: Tables = { ...edit, templateBuilds: 'write', resources: 'read' };
/** Installing a template installs its resources and scripts for the buyer. */
const installs: Tables = {
  ...builds,
  templateInstallations: 'write',
  ...resourceRoutes.callResource.tables,
  scripts: 'write',
  scriptInstallations: 'write',
  catalogStamps: 'write',
};

const BuildView = z.object({
  buildId: z.string(),
  templateId: z.string(),
  installationId: z.string().nullable(),
  version: z.string(),
  gitHash: z.string(),
  buildStatus: z.enum(['building', 'success', 'failed']),
  buildOutput: z.string().nullable(),
  cdnUrl: z.string().nullable(),
  cdnPathUrl: z.string().nullable(),
  reason: z.string().nullable(),
  logs: z.array(z.string()),
  startedAt: IsoDate,
  finishedAt: IsoDate.nullable(),
});
const Installation = z.object({
  installationId: z.string(),
  templateId: z.string(),
  pageUrl: z.string(),
  pagePathUrl: z.string(),
  subdomain: z.string(),
  version: z.string(),
  installedScripts: z.array(z.string()),
  installedResources: z.array(z.string()),
  customization: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  buildId: z.string(),
  buildStatus: z.enum(['building', 'success', 'failed']),
});
const Summary = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['draft', 'published']),
  version: z.string(),
  installCount: z.number(),
  createdAt: IsoDate,
});
const byId = (suffix = '') => `/api/sdk/v1/templates/{templateId}${suffix}`;
const installation = (suffix = '') => `/api/sdk/v1/templates/installations/{installationId}${suffix}`;
/** A build runs up to its limit in the builder; the function answers at the wait bound (25 s on AWS). */
const buildTimeout = 29;

export const templateRoutes = defineRoutes('templates', {
  createTemplate: {
    method: 'POST',
    path: '/api/sdk/v1/templates',
    auth: 'apiKey',
    scopes: manage,
    summary: 'Create a template (draft) from a repository commit',
    input: input.CreateTemplateInput,
    successStatus: 201,
    tables: edit,
    output: Summary.pick({ id: true, name: true, status: true, version: true, createdAt: true }),
  },
  listTemplates: {
    method: 'GET',
    path: '/api/sdk/v1/templates',
    auth: 'apiKey',
    summary: "The caller's templates",
    input: input.ListTemplatesInput,
    tables: read,
  },
  listMarketplaceTemplates: {
    method: 'GET',
    path: '/api/sdk/v1/templates/marketplace',
    auth: 'apiKey',
    summary: 'Published templates with filters and paging',
    input: input.MarketplaceInput,
    tables: { templates: 'read' },
  },
  getTemplate: {
    method: 'GET',
    path: byId(),
    auth: 'apiKey',
    summary: 'One template (its owner, or anyone once published)',
    input: input.TemplateIdInput,
    tables: read,
  },
  updateTemplate: { method: 'PATCH', path: byId(), auth: 'apiKey', scopes: manage, summary: 'Change metadata', input: input.UpdateTemplateInput, tables: edit },
  deleteTemplate: {
    method: 'DELETE',
    path: byId(),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Delete a template (refused with active installations)',
    input: input.TemplateIdInput,
    output: Message,
    tables: edit,
  },
  buildTemplate: {
    method: 'POST',
    path: byId('/build'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Build a version; answers at the end or at the wait bound with buildStatus building',
    input: input.BuildInput,
    output: BuildView,
    tables: builds,
    uses: ['templateBuilds'],
    timeoutSeconds: buildTimeout,
  },
  getTemplateBuild: {
    method: 'GET',
    path: byId('/builds/{buildId}'),
    auth: 'apiKey',
    summary: 'A build as it stands, with its logs so far',
    input: input.BuildIdInput,
    output: BuildView,
    tables: { templateBuilds: 'read' },
    uses: ['templateBuilds'],
  },
  checkTemplateRequirements: {
    method: 'POST',
    path: byId('/check-requirements'),
    auth: 'apiKey',
    summary: 'What installing needs, what is missing, the estimated cost',
    input: input.TemplateIdInput,
    tables: { ...read, resources: 'read', scripts: 'read' },
  },
  installTemplate: {
    method: 'POST',
    path: byId('/install'),
    auth: 'apiKey',
    scopes: install,
    summary: 'Install with customization: scripts, resources and a page on its own subdomain',
    input: input.InstallInput,
    output: Installation,
    successStatus: 201,
    tables: installs,
    uses: ['templateBuilds', 'credentialsKey'],
    timeoutSeconds: buildTimeout,
  },
  publishTemplate: {
    method: 'POST',
    path: byId('/publish'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Publish with pricing',
    input: input.PublishInput,
    tables: { ...edit, resources: 'read' },
  },
  unpublishTemplate: {
    method: 'POST',
    path: byId('/unpublish'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Back to draft; installations stay',
    input: input.TemplateIdInput,
    tables: edit,
  },
  createTemplateVersion: {
    method: 'POST',
    path: byId('/versions'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Add a version (semver above the latest) pinned to a commit',
    input: input.CreateVersionInput,
    successStatus: 201,
    tables: edit,
  },
  listTemplateVersions: {
    method: 'GET',
    path: byId('/versions'),
    auth: 'apiKey',
    summary: 'Versions, newest first',
    input: input.TemplateIdInput,
    tables: read,
  },
  createTemplateReview: {
    method: 'POST',
    path: byId('/reviews'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Review an installed template (one review per user)',
    input: input.ReviewInput,
    output: Review,
    successStatus: 201,
    tables: { templates: 'write', templateInstallations: 'read', reviews: 'write' },
  },
  listTemplateReviews: {
    method: 'GET',
    path: byId('/reviews'),
    auth: 'apiKey',
    summary: 'Reviews of a template, newest first',
    input: input.ListReviewsInput,
    output: ReviewList,
    tables: { ...read, reviews: 'read' },
  },
  listTemplateInstallations: {
    method: 'GET',
    path: '/api/sdk/v1/templates/installations',
    auth: 'apiKey',
    summary: "The caller's template installations",
    input: input.ListInstallationsInput,
    tables: read,
  },
  getTemplateInstallation: {
    method: 'GET',
    path: installation(),
    auth: 'apiKey',
    summary: "One of the caller's template installations",
    input: input.InstallationIdInput,
    output: Installation,
    tables: read,
  },
  uninstallTemplate: {
    method: 'DELETE',
    path: installation(),
    auth: 'apiKey',
    scopes: install,
    summary: 'Uninstall: the page stops, the scripts and resources it installed go',
    input: input.InstallationIdInput,
    output: Message,
    tables: installs,
    uses: ['templateBuilds', 'credentialsKey'],
  },
  upgradeTemplateInstallation: {
    method: 'POST',
    path: installation('/upgrade'),
    auth: 'apiKey',
    scopes: install,
    summary: 'Move to a newer version (default the newest built) by rebuilding the page',
    input: input.UpgradeInput,
    tables: builds,
    uses: ['templateBuilds'],
    timeoutSeconds: buildTimeout,
  },
});

/** Not an HTTP route: records CodeBuild's state changes of template builds (lib/templates.ts routes them here). */
export const buildStateFunction = {
  name: 'recordTemplateBuildState',
  summary: 'Records the end of a template build reported by CodeBuild',
  handler: 'functions/app/templates/handlers/record-build-state.ts',
  tables: { templateBuilds: 'write', templates: 'write', templateInstallations: 'write' },
  uses: ['templateBuilds'],
  timeoutSeconds: 60,
} as const;
