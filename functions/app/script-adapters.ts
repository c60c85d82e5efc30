// The scripts area's ports on a platform: the runtime that runs versions, its run slots, the package installer and
// store, and Python's `ast` for authoring. Each is made on first use: the local runtime and installer start processes.
import { lambdaPackageInstaller } from '#adapters/aws/package-installer.js';
import { lambdaPythonFacts } from '#adapters/aws/python-facts.js';
import { createS3BlobStore } from '#adapters/aws/s3-blob-store.js';
import { lambdaScriptRuntime } from '#adapters/aws/script-functions.js';
import { scriptGrantKey } from '#adapters/script-grant-key.js';
import { pythonFacts } from '#functions/scripts/authoring/python.js';
import type { PackageInstaller } from '#functions/scripts/packages/dependency-port.js';
import { createLeaseRunSlots } from '#functions/scripts/runs/run-leases.js';
import { runGrantToken } from '#functions/scripts/runs/run-grant.js';
import type { RunSlots } from '#functions/scripts/runs/run-slots.js';
import { createRunTallies } from '#functions/scripts/runs/run-tallies.js';
import type { ScriptRuntime } from '#functions/scripts/runs/runtime-port.js';
import { envNames } from '#platform/env-names.js';
import type { BlobStore } from '#platform/ports.js';
import { type Platform, perPlatform } from './platform.js';

/** Reads Python code with Python's `ast`: this machine's python3 locally, the stack's Python function on AWS. */
// Async so that a missing PYTHON_LINT_FUNCTION rejects, as the call it stands for does.
export const pythonCodeFacts =
  ({ settings }: Platform) =>
  async <T>(code: string): Promise<T | undefined> => {
    if (process.env.PLATFORM_MODE === 'local') return pythonFacts<T>(settings.scripts.python, code);
    const functionName = settings.scripts.pythonLintFunction;
    if (!functionName) throw new Error(`${envNames.pythonLintFunction} is not set: the stack gives it to functions that use pythonLint`);
    return lambdaPythonFacts<T>(code, functionName);
  };

export const scriptRuntime: (platform: Platform) => ScriptRuntime = perPlatform(({ local, settings: { kernel, scripts } }) =>
  process.env.PLATFORM_MODE === 'local'
    ? local!.scriptRuntime(scripts)
    : lambdaScriptRuntime({
        region: kernel.region,
        functionPrefix: kernel.scriptFunctionPrefix,
        roleBoundaryArn: scripts.lambda.roleBoundaryArn,
        resourceCallFunctionArn: scripts.lambda.resourceCallFunctionArn,
        runtimeLayerArn: scripts.lambda.runtimeLayerArn,
        resourceCallFunction: scripts.lambda.resourceCallFunction,
        packagesBucket: scripts.packagesBucket,
        grantToken: async (grant, timeoutMs) => runGrantToken(grant, timeoutMs, await scriptGrantKey(scripts.lambda.grantSecretArn)),
        tallies: createRunTallies,
      }),
);

/** Slots of script runs: in memory locally (one process runs them all), leases in DynamoDB on AWS. */
export const runSlots: (platform: Platform) => RunSlots = perPlatform(({ local }) =>
  process.env.PLATFORM_MODE === 'local' ? local!.runSlots() : createLeaseRunSlots(),
);

export const packageInstaller: (platform: Platform) => PackageInstaller = perPlatform(({ local, settings }) =>
  process.env.PLATFORM_MODE === 'local'
    ? local!.packageInstaller(settings.scripts)
    : lambdaPackageInstaller({ npm: settings.scripts.lambda.npmInstallerFunction, pip: settings.scripts.lambda.pipInstallerFunction }),
);

/** Installed dependency trees of script versions, one zip per lock hash. */
export const scriptPackageStore: (platform: Platform) => BlobStore = perPlatform(({ local, settings }) =>
  process.env.PLATFORM_MODE === 'local' ? local!.scriptPackages() : createS3BlobStore({}, settings.scripts.packagesBucket, envNames.scriptPackagesBucket),
);
