// Installing a version's declared packages (npm for node, pip for python) into a tree laid out as a Lambda layer:
// `nodejs/node_modules/...` or `python/...`. The local adapter runs the package manager in the OS sandbox
// (functions/adapters/local/package-installer.ts); the scripts area speaks only this port.
import type { DeclaredDependencies, RuntimeLabel } from './model.js';

/** A private registry of the account (npm registry URL, or a PEP 503 simple index for pip); the token is decrypted. */
export interface PackageRegistry {
  url: string;
  token?: string;
}

export interface InstallRequest {
  runtime: RuntimeLabel;
  declared: DeclaredDependencies;
  /** A package-lock.json the user gave (node): installed exactly, with `npm ci`. */
  lockfile?: string;
  registry?: PackageRegistry;
}

export interface InstalledTree {
  /** Host directory holding `nodejs/` or `python/`; removed by `dispose`. */
  root: string;
  /** Every installed package and its exact version. */
  resolved: Record<string, string>;
  /** The lock the install produced, canonical: equal locks mean equal trees. */
  lock: string;
  dispose(): Promise<void>;
}

export interface PackageInstaller {
  install(request: InstallRequest): Promise<InstalledTree>;
}

/** A package that does not exist, a version no release satisfies, or a registry that cannot be reached. */
export class PackageResolutionError extends Error {
  constructor(
    readonly packageName: string,
    message: string,
  ) {
    super(message);
  }
}

/** A package the platform will not install: it runs install scripts or ships native code. */
export class PackageRefusedError extends Error {
  constructor(
    readonly packageName: string,
    message: string,
  ) {
    super(message);
  }
}
