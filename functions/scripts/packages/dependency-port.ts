// Installing a version's declared packages (npm for node, pip for python) into a tree laid out as a Lambda layer:
// `nodejs/node_modules/...` or `python/...`, stored zipped in the blob store under its lock hash (package-trees.ts).
// Locally the package manager runs in the OS sandbox (functions/adapters/local/package-installer.ts), on AWS in the
// stack's installer functions (functions/adapters/aws/package-installer.ts); the scripts area speaks only this port.
import type { DeclaredDependencies, RuntimeLabel } from '../model.js';

/** A private registry of the account (npm registry URL, or a PEP 503 simple index for pip); the token is decrypted. */
export interface PackageRegistry {
  url: string;
  token?: string;
}

export interface InstallRequest {
  /** The account installing: a download cache kept between installs is this account's alone. */
  userId: string;
  runtime: RuntimeLabel;
  declared: DeclaredDependencies;
  /** A package-lock.json the user gave (node): installed exactly, with `npm ci`. */
  lockfile?: string;
  registry?: PackageRegistry;
  /** The most the unpacked tree may weigh (50 MB less the code): a heavier one is refused and not stored. */
  maxBytes: number;
}

/** A tree in the blob store under `archiveKey(lockHash)`. */
export interface InstalledTree {
  /** Every installed package and its exact version. */
  resolved: Record<string, string>;
  /** Hash of the runtime, the canonical lock and the installed files (package-trees.ts): equal hashes mean equal trees. */
  lockHash: string;
  /** The unpacked tree's size. */
  sizeBytes: number;
  /** True when this install stored the tree, false when an equal tree was stored already. */
  added: boolean;
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

/** The installed tree weighs more than the request's `maxBytes`. */
export class PackageTooLargeError extends Error {
  constructor(readonly sizeBytes: number) {
    super(`the installed packages come to ${sizeBytes} bytes`);
  }
}

/** What the stack's installer functions answer the AWS installer: the tree, or the refusal as one of the errors above. */
export type InstallerAnswer =
  | { ok: true; resolved: Record<string, string>; lock: string; key: string; sizeBytes: number; added: boolean }
  | { ok: false; kind: 'resolution' | 'refused'; package: string; message: string }
  | { ok: false; kind: 'tooLarge'; sizeBytes: number };
