// The templates area's composition root: the only file of the area that imports adapters or other areas.
import { resourcesApi } from '#functions/app/resources/wiring.js';
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { type CodeBuildStateChange, createCodeBuildTemplateBuilder, outcomeOfStateChange } from '#adapters/aws/codebuild-template-builder.js';
import { type Platform, perPlatform, platform } from '#functions/app/platform.js';
import { templateBuilder, templatePagesHost } from '#functions/app/template-adapters.js';
import { dynamo, tableName } from '#platform/dynamo.js';
import { ConflictError } from '#platform/errors.js';
import { type BuildService, createBuildService } from '#functions/templates/builds.js';
import { type TemplateInstallationService, createInstallationService } from '#functions/templates/installations.js';
import type { TemplateDependencies, TemplateSettings } from '#functions/templates/ports.js';
import { createTemplateReviewTarget } from '#functions/templates/reviews.js';
import { type TemplateService, createTemplateService } from '#functions/templates/service.js';
import { createTemplateStore } from '#functions/templates/store.js';

function serviceSettings({ settings: { kernel, templates } }: Platform): TemplateSettings {
  return {
    // Below API Gateway's 30 s on AWS; locally a build usually ends within the wait.
    buildWaitMs: (templates.buildWaitSeconds ?? (kernel.mode === 'local' ? 120 : 25)) * 1000,
    // A file:// repository lets a tenant probe which repositories and commits exist on the machine: an operator's choice.
    allowFileRepositories: kernel.mode === 'local' && templates.fileRepositories,
  };
}

/** 'preexisting' when the user had the item already: the template's uninstall leaves it. */
const alreadyInstalled = (error: unknown) => {
  if (error instanceof ConflictError && /already installed/.test(error.message)) return 'preexisting' as const;
  throw error;
};

function dependencies(platform: Platform): TemplateDependencies {
  const { resourceAvailability, installResource, uninstallResource } = resourcesApi(platform);
  const { scriptAvailability, installScript, uninstallScript } = scriptsApi(platform);
  return {
    resources: (_userId, ids) => resourceAvailability(ids),
    scripts: scriptAvailability,
    installResource: (caller, resourceId, baseUrl) => installResource(caller, resourceId, baseUrl).then(() => 'installed' as const, alreadyInstalled),
    uninstallResource: async (caller, resourceId) => void (await uninstallResource(caller, resourceId)),
    installScript: (userId, scriptId, customization) => installScript(userId, scriptId, customization).then(() => 'installed' as const, alreadyInstalled),
    uninstallScript,
  };
}

interface TemplatesArea {
  templates: TemplateService;
  installations: TemplateInstallationService;
  builds: BuildService;
}

export const templatesArea = perPlatform((platform: Platform): TemplatesArea => {
  const { clock } = platform;
  const settings = serviceSettings(platform);
  const store = createTemplateStore({ db: dynamo(), tableName });
  const pages = templatePagesHost(platform);
  // The local builder reports a build's end through this callback; on AWS the state-change consumer does.
  const builder = templateBuilder(platform, { timeoutMs: platform.settings.templates.buildTimeoutMs, onOutcome: (outcome) => builds.finish(outcome) });
  const builds = createBuildService({ store, builder, pages, settings, clock });
  const deps = dependencies(platform);
  const templates = createTemplateService({ store, builds, builder, pages, dependencies: deps, settings, clock });
  const installations = createInstallationService({ store, templates, builds, builder, pages, dependencies: deps, clock });
  return { templates, installations, builds };
});

export const templateReviewTarget = () => createTemplateReviewTarget(createTemplateStore({ db: dynamo(), tableName }));

export type { CodeBuildStateChange };

/** AWS: a CodeBuild state change of a template build, delivered over EventBridge, ends the build it is for. */
export async function recordBuildState(detail: CodeBuildStateChange): Promise<void> {
  const { settings } = platform();
  const outcome = await outcomeOfStateChange(detail, (buildId) => createCodeBuildTemplateBuilder(settings.templates.codeBuild).manifestText(buildId));
  if (outcome) await templatesArea().builds.finish(outcome);
}
