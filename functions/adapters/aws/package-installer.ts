// The PackageInstaller on AWS: API functions carry no package manager and no sandbox to run one in, so a version
// declaring packages is refused there with a clear message until installs run in a build job (docs/decisions.md).
import { type PackageInstaller, PackageResolutionError } from '#functions/scripts/dependency-port.js';

export const unavailablePackageInstaller: PackageInstaller = {
  async install(request) {
    const names = Array.isArray(request.declared) ? request.declared.join(', ') : Object.keys(request.declared).join(', ');
    throw new PackageResolutionError(names, `this deployment does not install packages yet (${names}); create the version without dependencies, or in local mode`);
  },
};
