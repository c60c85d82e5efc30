// The PackageInstaller on AWS: the API functions carry no package manager, so they invoke the stack's installer
// function of the runtime (npm on Node, pip on Python; lib/package-installers.ts) and wait for its answer. The
// installer stores the tree in the script-packages bucket itself; only the answer travels back.
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import {
  type InstallRequest,
  type InstallerAnswer,
  type PackageInstaller,
  PackageRefusedError,
  PackageResolutionError,
  PackageTooLargeError,
} from '#functions/scripts/packages/dependency-port.js';
import { envNames } from '#platform/env-names.js';
import { isPrivateAddress, privateUpstreamsAllowed } from '#platform/outbound.js';
import { requiredSetting } from '#platform/settings.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const sdk = onFirstUse(() => import('@aws-sdk/client-lambda'));

const packageNames = (request: InstallRequest) => (Array.isArray(request.declared) ? request.declared : Object.keys(request.declared)).join(', ');

/** A private registry is the account's choice of address: as for resource calls, never loopback, link-local or private. */
async function checkRegistry(request: InstallRequest) {
  if (!request.registry || privateUpstreamsAllowed()) return;
  const { hostname } = new URL(request.registry.url);
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    throw new PackageResolutionError(packageNames(request), `the package registry ${hostname} could not be resolved`);
  }
  if (addresses.some(isPrivateAddress))
    throw new PackageResolutionError(packageNames(request), `the package registry ${hostname} is a loopback, link-local or private address`);
}

/** `functions`: the npm and pip installer functions (NPM_INSTALLER_FUNCTION, PIP_INSTALLER_FUNCTION) the stack gives with `packageInstallers`. */
export function createLambdaPackageInstaller(
  lambda: () => LambdaClient | Promise<LambdaClient>,
  functions: { npm: string | undefined; pip: string | undefined },
): PackageInstaller {
  return {
    async install(request) {
      await checkRegistry(request);
      const functionName =
        request.runtime === 'nodejs18'
          ? requiredSetting(functions.npm, envNames.npmInstallerFunction, 'packageInstallers')
          : requiredSetting(functions.pip, envNames.pipInstallerFunction, 'packageInstallers');
      // The payload carries the registry token: Lambda logs no payload, and the installers log none.
      const { InvokeCommand } = await sdk();
      const response = await (await lambda()).send(new InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify(request) }));
      const payload = Buffer.from(response.Payload ?? new Uint8Array()).toString('utf8');
      if (response.FunctionError) {
        // Past its own timeout the installer cannot answer: the packages took too long, as a refusal says.
        if (payload.includes('Task timed out'))
          throw new PackageResolutionError(
            packageNames(request),
            `installing ${packageNames(request)} did not finish within the time limit of a package install`,
          );
        throw new Error(`the package installer ${functionName} failed: ${payload.slice(0, 500)}`);
      }
      const answer = JSON.parse(payload) as InstallerAnswer;
      if (!answer.ok) {
        if (answer.kind === 'tooLarge') throw new PackageTooLargeError(answer.sizeBytes);
        throw answer.kind === 'refused' ? new PackageRefusedError(answer.package, answer.message) : new PackageResolutionError(answer.package, answer.message);
      }
      // The key names the installed files (package-trees.ts), which only the installer has seen.
      const lockHash = /^script-deps\/([0-9a-f]{64})\.zip$/.exec(answer.key)?.[1];
      if (!lockHash) throw new Error(`the package installer ${functionName} stored the tree under ${answer.key}, not script-deps/<sha256>.zip`);
      return { resolved: answer.resolved, lockHash, sizeBytes: answer.sizeBytes, added: answer.added };
    },
  };
}

/** The installer with a Lambda client made on first use; the composition root keeps one per container. */
export function lambdaPackageInstaller(functions: { npm: string | undefined; pip: string | undefined }): PackageInstaller {
  return createLambdaPackageInstaller(
    onFirstUse(async () => traced(new (await sdk()).LambdaClient({}))),
    functions,
  );
}
