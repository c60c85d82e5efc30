// The templates area's settings: build limits, the allowed repositories, the AWS build project and pages, parsed once
// per start by the composition root (functions/app/platform.ts).
import * as z from 'zod';
import { envNames } from '#platform/env-names.js';
import { envNumber } from '#platform/settings.js';

export const templateSettingsSchema = z
  .object({
    // Unset, the wiring picks by mode: below API Gateway's 30 s on AWS, longer locally.
    [envNames.templateBuildWaitSeconds]: z.coerce.number().optional(),
    [envNames.templateBuildTimeoutSeconds]: envNumber(600),
    [envNames.templateFileRepositories]: z.string().optional(),
    [envNames.templateNpmRegistry]: z.string().default('https://registry.npmjs.org/'),
    [envNames.templateBuildScratchMb]: envNumber(1024),
    [envNames.templateBuildsMax]: envNumber(2),
    [envNames.templateBuildsPerAccount]: envNumber(1),
    [envNames.path]: z.string().default('/usr/local/bin:/usr/bin:/bin'),
    // On AWS, given by the stack with the templateBuilds capability.
    [envNames.templateBuildProject]: z.string().optional(),
    [envNames.pagesBucket]: z.string().optional(),
    [envNames.templateBuildLogGroup]: z.string().optional(),
    [envNames.pagesBaseUrl]: z.string().optional(),
    [envNames.pagesDomain]: z.string().optional(),
  })
  .transform((env) => ({
    buildWaitSeconds: env[envNames.templateBuildWaitSeconds],
    buildTimeoutMs: env[envNames.templateBuildTimeoutSeconds] * 1000,
    /** file:// repositories, an operator's choice (local mode only). */
    fileRepositories: env[envNames.templateFileRepositories] === 'true',
    /** The registry `npm ci` uses, the one private address its egress may reach. */
    npmRegistry: env[envNames.templateNpmRegistry],
    /** A build's scratch space (a tmpfs holding the checkout, its dependencies and what the build writes). */
    scratchMb: Math.max(16, env[envNames.templateBuildScratchMb] || 1024),
    /** Builds at once, in all and per account; more wait in order. Two cores' worth by default. */
    buildsMax: Math.max(1, env[envNames.templateBuildsMax] || 2),
    buildsPerAccount: Math.max(1, env[envNames.templateBuildsPerAccount] || 1),
    /** The PATH every build step gets. */
    path: env[envNames.path],
    codeBuild: {
      projectName: env[envNames.templateBuildProject],
      bucketName: env[envNames.pagesBucket],
      logGroupName: env[envNames.templateBuildLogGroup],
    },
    pages: { baseUrl: env[envNames.pagesBaseUrl], domain: env[envNames.pagesDomain] },
  }));

export type TemplateSettings = z.output<typeof templateSettingsSchema>;
