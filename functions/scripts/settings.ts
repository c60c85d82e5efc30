// The scripts area's settings, parsed once per start by the composition root (functions/app/platform.ts).
import * as z from 'zod';
import { envNames } from '#platform/env-names.js';
import { envNumber } from '#platform/settings.js';
import { defaultDurableLimits } from '../durable/schemas.js';
import { limits } from './model.js';

/** A positive whole number: a bound of 0 would refuse everything, a fraction means nothing. */
const bound = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const scriptSettingsSchema = z
  .object({
    [envNames.scriptMaxWorkers]: envNumber(32),
    [envNames.scriptIdleSeconds]: envNumber(300),
    [envNames.scriptManualRunsPerMinute]: envNumber(limits.manualExecutionsPerMinute),
    // Unset, each installer keeps its own bound (a local install may take longer than the AWS installer function).
    [envNames.packageInstallTimeoutSeconds]: z.coerce.number().optional(),
    [envNames.scriptPackagesBucket]: z.string().optional(),
    [envNames.pythonLintFunction]: z.string().optional(),
    [envNames.scriptRoleBoundaryArn]: z.string().optional(),
    [envNames.scriptRuntimeLayerArn]: z.string().optional(),
    [envNames.resourceCallFunction]: z.string().optional(),
    [envNames.resourceCallFunctionArn]: z.string().optional(),
    [envNames.npmInstallerFunction]: z.string().optional(),
    [envNames.pipInstallerFunction]: z.string().optional(),
    [envNames.scriptGrantSecretArn]: z.string().optional(),
    [envNames.scriptSandbox]: z.string().optional(),
    [envNames.python]: z.string().optional(),
    [envNames.durableMaxSteps]: bound(defaultDurableLimits.maxSteps),
    [envNames.durableMaxJournalBytes]: bound(defaultDurableLimits.maxJournalBytes),
    [envNames.durableMaxOpenWaitsPerRun]: bound(defaultDurableLimits.maxOpenWaitsPerRun),
    [envNames.durableMaxOpenWaitsPerUser]: bound(defaultDurableLimits.maxOpenWaitsPerUser),
  })
  .transform((env) => ({
    /** Warm workers of the local script pool. */
    maxWorkers: env[envNames.scriptMaxWorkers],
    idleMs: env[envNames.scriptIdleSeconds] * 1000,
    /** Benches raise it (as they raise RATE_LIMIT_PER_MINUTE) to measure the runtime, not the limiter. */
    manualRunsPerMinute: env[envNames.scriptManualRunsPerMinute],
    packageInstallTimeoutSeconds: env[envNames.packageInstallTimeoutSeconds],
    /** Installed dependency trees and versions' code on AWS; granted to the functions that read or write them. */
    packagesBucket: env[envNames.scriptPackagesBucket],
    /** The stack's Python function that reads Python code with `ast` on AWS. */
    pythonLintFunction: env[envNames.pythonLintFunction],
    /** Local mode's isolation of scripts, installs and template builds: bubblewrap unless SCRIPT_SANDBOX=none (trusted code only). */
    sandbox: env[envNames.scriptSandbox] === 'none' ? ('none' as const) : ('bwrap' as const),
    /** The Python interpreter (a command or a path) of local workers and installs, and of checking Python code where it runs. */
    python: env[envNames.python] ?? 'python3',
    /** What the stack gives the functions that deploy, run and install for Lambda-deployed scripts (lib/grants.ts). */
    lambda: {
      roleBoundaryArn: env[envNames.scriptRoleBoundaryArn],
      runtimeLayerArn: env[envNames.scriptRuntimeLayerArn],
      resourceCallFunction: env[envNames.resourceCallFunction],
      resourceCallFunctionArn: env[envNames.resourceCallFunctionArn],
      npmInstallerFunction: env[envNames.npmInstallerFunction],
      pipInstallerFunction: env[envNames.pipInstallerFunction],
      grantSecretArn: env[envNames.scriptGrantSecretArn],
    },
    /** The bounds of a durable run's journal and of the waits a run and a user hold open (durable/limits.ts). */
    durable: {
      maxSteps: env[envNames.durableMaxSteps],
      maxJournalBytes: env[envNames.durableMaxJournalBytes],
      maxOpenWaitsPerRun: env[envNames.durableMaxOpenWaitsPerRun],
      maxOpenWaitsPerUser: env[envNames.durableMaxOpenWaitsPerUser],
    },
  }));

export type ScriptSettings = z.output<typeof scriptSettingsSchema>;
