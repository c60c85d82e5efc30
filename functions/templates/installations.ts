// Installing a template: requirements, the buyer's own copy of its scripts and resources, a customised build of
// its page on the installation's own subdomain; list, uninstall and upgrade (installations stay pinned otherwise).
import type { Clock } from '#platform/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId } from '#platform/ids.js';
import { compareSemver } from '#platform/semver.js';
import type { BuildService } from './builds.js';
import { type CustomizationValue, publicEnv, resolveCustomization } from './customization.js';
import { type TemplateInstallation, type TemplateItem, installationView } from './model.js';
import type { PagesHost, TemplateBuilder, TemplateDependencies } from './ports.js';
import type { TemplateService } from './service.js';
import type { TemplateStore } from './store.js';
import { newSubdomain } from './subdomain.js';

export interface InstallationServiceDeps {
  store: TemplateStore;
  templates: TemplateService;
  builds: BuildService;
  builder: TemplateBuilder;
  pages: PagesHost;
  dependencies: TemplateDependencies;
  clock: Clock;
}

export function createInstallationService(deps: InstallationServiceDeps) {
  const { store, templates, builds, builder, pages, dependencies, clock } = deps;

  async function requirementsOf(userId: string, template: TemplateItem) {
    const wanted = template.manifest?.dependencies ?? { scripts: [], resources: [] };
    const [resources, scripts] = await Promise.all([dependencies.resources(userId, wanted.resources), dependencies.scripts(userId, wanted.scripts)]);
    const missingResources = resources.filter((resource) => !resource.available).map((resource) => resource.id);
    const missingScripts = scripts.filter((script) => !script.available).map((script) => script.id);
    return { resources, scripts, missingResources, missingScripts };
  }

  const view = (installation: TemplateInstallation, apiBaseUrl: string) => ({
    ...installationView(installation),
    pageUrl: pages.pageUrl(installation.subdomain, apiBaseUrl),
    pagePathUrl: pages.pathUrl(installation.subdomain, apiBaseUrl),
  });

  async function mine(userId: string, installationId: string): Promise<TemplateInstallation> {
    const installation = await store.getInstallation(installationId);
    if (!installation || installation.userId !== userId) throw new NotFoundError('installationId', installationId, 'template installation');
    return installation;
  }

  /** Builds the installation's page at `version` and answers when it ends or at the wait bound. */
  async function buildPage(installation: TemplateInstallation, template: TemplateItem, version: { version: string; gitHash: string }, apiBaseUrl: string) {
    const started = await builds.start({
      templateId: template.templateId,
      userId: installation.userId,
      installationId: installation.installationId,
      version: version.version,
      gitHash: version.gitHash,
      repository: template.repository,
      templatePath: template.templatePath,
      subdomain: installation.subdomain,
      publicEnv: publicEnv(installation.customization),
    });
    await store.updateInstallation(installation.installationId, { buildId: started.buildId, buildStatus: 'building', updatedAt: clock.nowIso() });
    const build = await builds.view(await builds.awaitEnd(started.buildId), apiBaseUrl);
    const current = (await store.getInstallation(installation.installationId)) ?? installation;
    return { ...view(current, apiBaseUrl), buildId: build.buildId, buildStatus: build.buildStatus, reason: build.reason, logs: build.logs };
  }

  async function removeDependencies(caller: Caller, scripts: string[], resources: string[]) {
    // A dependency the user removed by hand meanwhile is simply gone: nothing left to undo.
    const ignoreMissing = (error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    };
    for (const scriptId of scripts) await dependencies.uninstallScript(caller.userId, scriptId).catch(ignoreMissing);
    for (const resourceId of resources) await dependencies.uninstallResource(caller, resourceId).catch(ignoreMissing);
  }

  return {
    async checkRequirements(userId: string, templateId: string) {
      const template = await templates.find(userId, templateId, true);
      const { resources, scripts, missingResources, missingScripts } = await requirementsOf(userId, template);
      const pricing = template.pricing;
      return {
        canInstall: Boolean(template.builtVersion) && !missingResources.length && !missingScripts.length,
        missingResources,
        missingScripts,
        built: Boolean(template.builtVersion),
        estimatedCost: { setup: pricing?.setupFee ?? 0, monthly: pricing?.monthlyFee ?? 0, perUse: pricing?.estimatedUsageCost.perUse ?? 0 },
        requirements: { scripts, resources },
      };
    },

    async install(caller: Caller, input: { templateId: string; customization: Record<string, CustomizationValue> }, apiBaseUrl: string) {
      const template = await templates.find(caller.userId, input.templateId, true);
      if (!template.builtVersion || !template.manifest)
        throw new ConflictError(`template ${template.templateId} has no successful build to install`, { templateId: template.templateId });
      const customization = resolveCustomization(template.manifest.customization, input.customization);
      const { missingResources, missingScripts } = await requirementsOf(caller.userId, template);
      if (missingResources.length || missingScripts.length) {
        throw new ConflictError('the template needs scripts or resources that are not available to you', {
          templateId: template.templateId,
          missingResources,
          missingScripts,
        });
      }
      const version = (await store.getVersion(template.templateId, template.builtVersion))!;
      const wanted = template.manifest.dependencies;
      const installed = { scripts: [] as string[], resources: [] as string[] };
      const preexisting = { scripts: [] as string[], resources: [] as string[] };
      const now = clock.nowIso();
      let installation: TemplateInstallation | undefined;
      try {
        for (const resourceId of wanted.resources) {
          const outcome = await dependencies.installResource(caller, resourceId, apiBaseUrl);
          (outcome === 'installed' ? installed : preexisting).resources.push(resourceId);
        }
        for (const scriptId of wanted.scripts) {
          const outcome = await dependencies.installScript(caller.userId, scriptId, customization);
          (outcome === 'installed' ? installed : preexisting).scripts.push(scriptId);
        }
        for (let attempt = 0; attempt < 3 && !installation; attempt++) {
          const candidate: TemplateInstallation = {
            installationId: newId('tin'),
            templateId: template.templateId,
            templateName: template.name,
            userId: caller.userId,
            version: version.version,
            gitHash: version.gitHash,
            subdomain: newSubdomain(template.name),
            customization,
            installedScripts: wanted.scripts,
            installedResources: wanted.resources,
            preexisting,
            status: 'active',
            buildId: '',
            buildStatus: 'building',
            installedAt: now,
            updatedAt: now,
          };
          if (await store.install(candidate)) installation = candidate;
        }
        if (!installation) throw new ConflictError('could not allocate a unique subdomain; try again');
      } catch (error) {
        await removeDependencies(caller, installed.scripts, installed.resources);
        throw error;
      }
      return buildPage(installation, template, version, apiBaseUrl);
    },

    async list(userId: string, input: { limit: number; offset: number }, apiBaseUrl: string) {
      const all = await store.listInstallationsByUser(userId);
      return {
        installations: all.slice(input.offset, input.offset + input.limit).map((installation) => view(installation, apiBaseUrl)),
        total: all.length,
        limit: input.limit,
        offset: input.offset,
      };
    },

    async get(userId: string, installationId: string, apiBaseUrl: string) {
      return view(await mine(userId, installationId), apiBaseUrl);
    },

    async uninstall(caller: Caller, installationId: string) {
      const installation = await mine(caller.userId, installationId);
      await store.uninstall(installation);
      const keep = installation.preexisting;
      await removeDependencies(
        caller,
        installation.installedScripts.filter((id) => !keep.scripts.includes(id)),
        installation.installedResources.filter((id) => !keep.resources.includes(id)),
      );
      await builder.removeSite(installation.subdomain);
      return `template installation ${installationId} uninstalled; its page at ${installation.subdomain} is no longer served`;
    },

    /** Moves the installation to `version` (default the template's newest built one) by rebuilding its page. */
    async upgrade(caller: Caller, input: { installationId: string; version?: string }, apiBaseUrl: string) {
      const installation = await mine(caller.userId, input.installationId);
      if (installation.buildStatus === 'building')
        throw new ConflictError(`installation ${installation.installationId} is being built; wait for the build to end`, {
          installationId: installation.installationId,
        });
      const template = await store.get(installation.templateId);
      if (!template) throw new NotFoundError('templateId', installation.templateId, 'template');
      const target = input.version ?? template.builtVersion ?? template.version;
      if (compareSemver(target, installation.version) <= 0) {
        throw new ValidationError('version', target, `an upgrade needs a version newer than the installed ${installation.version}`, {
          installed: installation.version,
        });
      }
      const version = await store.getVersion(template.templateId, target);
      if (!version) throw new NotFoundError('version', target, 'template version');
      // Fields the new version dropped go, new ones take their defaults; only the newest build's fields are known.
      const customization =
        target === template.builtVersion && template.manifest
          ? resolveCustomization(
              template.manifest.customization,
              Object.fromEntries(
                Object.entries(installation.customization).filter(([key]) => template.manifest!.customization.some((field) => field.key === key)),
              ),
            )
          : installation.customization;
      const updated = (await store.updateInstallation(installation.installationId, { customization, updatedAt: clock.nowIso() })) ?? installation;
      return buildPage(updated, template, version, apiBaseUrl);
    },
  };
}

export type TemplateInstallationService = ReturnType<typeof createInstallationService>;
