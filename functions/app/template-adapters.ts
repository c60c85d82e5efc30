// The templates area's ports in this process's mode: the builder (CodeBuild on AWS) and the pages host (CloudFront).
import { createCodeBuildTemplateBuilder } from '#adapters/aws/codebuild-template-builder.js';
import { cloudFrontPagesHost } from '#adapters/aws/pages-host.js';
import type { PagesHost, TemplateBuilder } from '#functions/templates/ports.js';
import { type TemplateBuilderOptions, liveTemplateSettings, localAdapters } from './platform.js';

export const templateBuilder = (options: TemplateBuilderOptions): TemplateBuilder =>
  process.env.PLATFORM_MODE === 'local'
    ? localAdapters().templateBuilder({ ...options, settings: liveTemplateSettings })
    : createCodeBuildTemplateBuilder(liveTemplateSettings().codeBuild);

export const templatePagesHost = (): PagesHost =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().pagesHost : cloudFrontPagesHost(liveTemplateSettings().pages);
