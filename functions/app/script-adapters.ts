// The scripts area's ports in this process's mode: the runtime that runs versions, its run slots, the package
// installer and store, and Python's `ast` for authoring.
import { lambdaPackageInstaller } from '#adapters/aws/package-installer.js';
import { lambdaPythonFacts } from '#adapters/aws/python-facts.js';
import { createS3BlobStore } from '#adapters/aws/s3-blob-store.js';
import { lambdaScriptRuntime } from '#adapters/aws/script-functions.js';
import { pythonFacts } from '#functions/scripts/authoring/python.js';
import type { PackageInstaller } from '#functions/scripts/packages/dependency-port.js';
import { createLeaseRunSlots } from '#functions/scripts/runs/run-leases.js';
import type { RunSlots } from '#functions/scripts/runs/run-slots.js';
import type { ScriptRuntime } from '#functions/scripts/runs/runtime-port.js';
import { envNames } from '#platform/env-names.js';
import type { BlobStore } from '#platform/ports.js';
import { readEnv, requiredEnv } from '#platform/settings.js';
import { localAdapters, platformSettings } from './platform.js';

/** Reads Python code with Python's `ast`: this machine's python3 locally, the stack's Python function on AWS. */
// Async so that a missing PYTHON_LINT_FUNCTION rejects, as the call it stands for does.
export const pythonCodeFacts = async <T>(code: string): Promise<T | undefined> =>
  process.env.PLATFORM_MODE === 'local' ? pythonFacts<T>(code) : lambdaPythonFacts<T>(code, requiredEnv(envNames.pythonLintFunction, 'pythonLint'));

export const scriptRuntime = (): ScriptRuntime =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().scriptRuntime(platformSettings().scripts) : lambdaScriptRuntime();

let leaseRunSlots: RunSlots | undefined;
/** Slots of script runs: in memory locally (one process runs them all), leases in DynamoDB on AWS. */
export const runSlots = (): RunSlots => (process.env.PLATFORM_MODE === 'local' ? localAdapters().runSlots() : (leaseRunSlots ??= createLeaseRunSlots()));

// One per container, made on first use, with its Lambda client.
let awsPackageInstaller: PackageInstaller | undefined;

export const packageInstaller = (): PackageInstaller =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().packageInstaller(platformSettings().scripts) : (awsPackageInstaller ??= lambdaPackageInstaller());

/** Installed dependency trees of script versions, one zip per lock hash. */
export const scriptPackageStore = (): BlobStore =>
  process.env.PLATFORM_MODE === 'local'
    ? localAdapters().scriptPackages()
    : createS3BlobStore({}, readEnv(envNames.scriptPackagesBucket), envNames.scriptPackagesBucket);
