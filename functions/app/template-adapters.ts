// The templates area's ports on a platform: the builder (CodeBuild on AWS) and the pages host (CloudFront).
import { createCodeBuildTemplateBuilder } from '#adapters/aws/codebuild-template-builder.js';
import { cloudFrontPagesHost } from '#adapters/aws/pages-host.js';
import type { PagesHost, TemplateBuilder } from '#functions/templates/ports.js';
import type { Platform, TemplateBuilderOptions } from './platform.js';

export const templateBuilder = ({ local, settings }: Platform, options: TemplateBuilderOptions): TemplateBuilder =>
  process.env.PLATFORM_MODE === 'local'
    ? local!.templateBuilder({ ...options, settings: settings.templates, sandbox: settings.scripts.sandbox })
    : createCodeBuildTemplateBuilder(settings.templates.codeBuild);

export const templatePagesHost = ({ local, settings }: Platform): PagesHost =>
  process.env.PLATFORM_MODE === 'local' ? local!.pagesHost : cloudFrontPagesHost(settings.templates.pages);
