// The templates area's rules: create, versions, build, publish and unpublish, PATCH, delete, lists and the
// marketplace. Installations live in installations.ts, builds in builds.ts.
import type { Clock } from '#platform/clock.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import { compareSemver } from '#platform/semver.js';
import type { BuildService } from './builds.js';
import { type TemplateItem, type TemplateVersion, marketplaceView, summaryView, templateView } from './model.js';
import type { PagesHost, TemplateBuilder, TemplateDependencies, TemplateSettings } from './ports.js';
import type { CreateTemplateInput, TemplatePricing, UpdateTemplateInput } from './schemas.js';
import type { TemplateStore } from './store.js';
import { newSubdomain } from './subdomain.js';

export interface TemplateServiceDeps {
  store: TemplateStore;
  builds: BuildService;
  /** Removes a deleted template's published site. */
  builder: Pick<TemplateBuilder, 'removeSite'>;
  pages: PagesHost;
  dependencies: TemplateDependencies;
  settings: TemplateSettings;
  clock: Clock;
}

const page = <T>(items: T[], input: { limit: number; offset: number }) => ({
  items: items.slice(input.offset, input.offset + input.limit),
  total: items.length,
});

export function createTemplateService(deps: TemplateServiceDeps) {
  const { store, builds, builder, pages, dependencies, settings, clock } = deps;

  /** The owner's template; anyone else's (or none) is NOT_FOUND, unless it is published and `visibleIfPublished`. */
  async function find(userId: string, templateId: string, visibleIfPublished = false): Promise<TemplateItem> {
    const template = await store.get(templateId);
    if (!template || (template.ownerId !== userId && !(visibleIfPublished && template.status === 'published')))
      throw new NotFoundError('templateId', templateId, 'template');
    return template;
  }

  /** Changing a template another user published is FORBIDDEN (they may see it); a draft of theirs stays unseen. */
  async function owned(userId: string, templateId: string): Promise<TemplateItem> {
    const template = await find(userId, templateId, true);
    if (template.ownerId !== userId) throw new ForbiddenError(`template ${templateId} belongs to another user; only its owner may change it`, { templateId });
    return template;
  }

  const view = (template: TemplateItem, apiBaseUrl: string) => ({
    ...templateView(template),
    cdnUrl: template.builtVersion ? pages.pageUrl(template.previewSubdomain, apiBaseUrl) : null,
    cdnPathUrl: template.builtVersion ? pages.pathUrl(template.previewSubdomain, apiBaseUrl) : null,
  });

  function checkRepository(repository: string) {
    if (repository.startsWith('file:') && !settings.allowFileRepositories)
      throw new ValidationError(
        'repository',
        repository,
        'file:// repositories are accepted only in local mode with TEMPLATE_FILE_REPOSITORIES=true; use an https:// URL',
      );
  }

  return {
    find,
    owned,
    view,

    async create(userId: string, input: CreateTemplateInput) {
      checkRepository(input.repository);
      const now = clock.nowIso();
      const templateId = newId('tpl');
      for (let attempt = 0; attempt < 3; attempt++) {
        const template: TemplateItem = {
          templateId,
          ownerId: userId,
          name: input.name,
          description: input.description,
          category: input.category ?? null,
          tags: input.tags,
          repository: input.repository,
          templatePath: input.templatePath,
          version: input.version,
          gitHash: input.gitHash,
          status: 'draft',
          pricing: null,
          previewSubdomain: newSubdomain(input.name),
          builtVersion: null,
          buildId: null,
          buildStatus: null,
          buildOutput: null,
          manifest: null,
          installCount: 0,
          ratingSum: 0,
          reviewCount: 0,
          createdAt: now,
          updatedAt: now,
        };
        const version: TemplateVersion = {
          templateId,
          version: input.version,
          versionId: newId('tvr'),
          gitHash: input.gitHash,
          changelog: 'initial version',
          createdAt: now,
        };
        if (await store.create(template, version))
          return { id: templateId, name: template.name, status: template.status, version: template.version, createdAt: now };
      }
      throw new ConflictError('could not allocate a unique subdomain; try again');
    },

    async list(userId: string, input: { status?: 'draft' | 'published'; limit: number; offset: number }) {
      const mine = (await store.listByOwner(userId)).filter((template) => !input.status || template.status === input.status);
      const { items, total } = page(mine, input);
      return { templates: items.map(summaryView), total, limit: input.limit, offset: input.offset };
    },

    async marketplace(input: { category?: string; tags?: string[]; search?: string; limit: number; offset: number }) {
      const search = input.search?.toLowerCase();
      const matching = (await store.listPublished()).filter(
        (template) =>
          (!input.category || template.category?.toLowerCase() === input.category.toLowerCase()) &&
          (!input.tags?.length || input.tags.every((tag) => template.tags.some((own) => own.toLowerCase() === tag.toLowerCase()))) &&
          (!search ||
            template.name.toLowerCase().includes(search) ||
            template.description.toLowerCase().includes(search) ||
            template.tags.some((tag) => tag.toLowerCase().includes(search))),
      );
      const { items, total } = page(matching, input);
      return { templates: items.map(marketplaceView), total, limit: input.limit, offset: input.offset };
    },

    async update(userId: string, input: UpdateTemplateInput, apiBaseUrl: string) {
      const template = await owned(userId, input.templateId);
      const { templateId: _id, ...fields } = input;
      const set = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
      const updated = await store.update(template.templateId, { ...set, updatedAt: clock.nowIso() });
      if (!updated) throw new NotFoundError('templateId', template.templateId, 'template');
      return view(updated, apiBaseUrl);
    },

    async addVersion(userId: string, input: { templateId: string; version: string; gitHash: string; changelog?: string }) {
      const template = await owned(userId, input.templateId);
      const latest =
        (await store.listVersions(template.templateId))
          .map((version) => version.version)
          .sort(compareSemver)
          .at(-1) ?? template.version;
      if (compareSemver(input.version, latest) <= 0)
        throw new ValidationError('version', input.version, `version must be greater than the latest, ${latest}`, { latest });
      const version: TemplateVersion = {
        templateId: template.templateId,
        version: input.version,
        versionId: newId('tvr'),
        gitHash: input.gitHash,
        changelog: input.changelog ?? null,
        createdAt: clock.nowIso(),
      };
      if (!(await store.addVersion(version, { version: input.version, gitHash: input.gitHash, updatedAt: version.createdAt }))) {
        throw new ConflictError(`version ${input.version} exists already`, { version: input.version });
      }
      return { versionId: version.versionId, version: version.version, gitHash: version.gitHash, changelog: version.changelog, createdAt: version.createdAt };
    },

    async listVersions(userId: string, templateId: string) {
      const template = await find(userId, templateId, true);
      const versions = (await store.listVersions(template.templateId)).sort((a, b) => compareSemver(b.version, a.version));
      return { versions: versions.map(({ templateId: _id, ...version }) => version), count: versions.length };
    },

    /** Builds `version` (default the newest) of the template for its preview subdomain. */
    async build(userId: string, input: { templateId: string; version?: string; wait?: number }, apiBaseUrl: string) {
      const template = await owned(userId, input.templateId);
      const version = await store.getVersion(template.templateId, input.version ?? template.version);
      if (!version) throw new NotFoundError('version', input.version ?? template.version, 'template version');
      const started = await builds.start({
        templateId: template.templateId,
        userId,
        installationId: null,
        version: version.version,
        gitHash: version.gitHash,
        repository: template.repository,
        templatePath: template.templatePath,
        subdomain: template.previewSubdomain,
        publicEnv: {},
      });
      await store.update(template.templateId, { buildId: started.buildId, buildStatus: 'building', updatedAt: clock.nowIso() });
      return builds.view(await builds.awaitEnd(started.buildId, builds.waitWithin(input.wait === undefined ? undefined : input.wait * 1000)), apiBaseUrl);
    },

    async getBuild(userId: string, input: { templateId: string; buildId: string; wait: number }, apiBaseUrl: string) {
      const build = await builds.get(input.buildId);
      // Its template's owner or the installer whose page it is; nobody else learns it exists.
      if (!build || build.templateId !== input.templateId || build.userId !== userId) throw new NotFoundError('buildId', input.buildId, 'build');
      const current = build.status === 'building' && input.wait ? await builds.awaitEnd(build.buildId, input.wait * 1000) : build;
      return builds.view(current, apiBaseUrl);
    },

    async publish(userId: string, input: { templateId: string; pricing: TemplatePricing }) {
      const template = await owned(userId, input.templateId);
      if (template.status !== 'draft')
        throw new ConflictError(`template ${template.templateId} is ${template.status}, not draft`, {
          templateId: template.templateId,
          status: template.status,
        });
      const problems: string[] = [];
      if (!template.builtVersion || !template.manifest) problems.push('it needs a successful build with a CDN address');
      if (!template.description.trim()) problems.push('it needs a description');
      if (!template.category) problems.push('it needs a category');
      const wanted = template.manifest?.dependencies.resources ?? [];
      const unavailable = (await dependencies.resources(userId, wanted)).filter((resource) => !resource.available).map((resource) => resource.id);
      if (unavailable.length) problems.push(`resources not published in the marketplace: ${unavailable.join(', ')}`);
      if (problems.length)
        throw new ValidationError('templateId', template.templateId, `template cannot be published: ${problems.join('; ')}`, {
          problems,
          missingResources: unavailable,
        });
      const now = clock.nowIso();
      const updated = await store.update(
        template.templateId,
        { status: 'published', listing: 'published', pricing: input.pricing, publishedAt: now, updatedAt: now },
        [],
        'draft',
      );
      if (!updated) throw new ConflictError(`template ${template.templateId} changed meanwhile; read it again and retry`, { templateId: template.templateId });
      return { id: updated.templateId, status: updated.status, version: updated.builtVersion, pricing: updated.pricing, publishedAt: now };
    },

    async unpublish(userId: string, templateId: string) {
      const template = await owned(userId, templateId);
      if (template.status !== 'published')
        throw new ConflictError(`template ${templateId} is ${template.status}, not published`, { templateId, status: template.status });
      const updated = await store.update(templateId, { status: 'draft', updatedAt: clock.nowIso() }, ['listing'], 'published');
      if (!updated) throw new ConflictError(`template ${templateId} changed meanwhile; read it again and retry`, { templateId });
      return { id: templateId, status: updated.status };
    },

    async remove(userId: string, templateId: string) {
      const template = await owned(userId, templateId);
      const active = (await store.listInstallationsByTemplate(templateId)).length;
      if (active)
        throw new ConflictError(`template ${templateId} has ${active} active installations; they must be uninstalled first`, {
          templateId,
          activeInstallations: active,
        });
      await store.remove(template, await store.listVersions(templateId));
      // Its preview page goes with it (installations' pages went when they were uninstalled).
      await builder.removeSite(template.previewSubdomain);
      return `template ${templateId} deleted`;
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
