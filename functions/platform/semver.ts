// Semantic Versioning 2.0 for script and template versions: pre-releases such as
// `1.0.0-beta.1` and build metadata accepted, ordered by semver precedence (build metadata ignored).
import * as z from 'zod';
import semver from 'semver';

/** Strict: the text must be exactly what it parses to (no leading `v` or `=`, no spaces), at most 256 characters as semver's own limit. */
export function isSemver(version: string): boolean {
  const parsed = version.length <= 256 ? semver.parse(version) : null;
  return parsed !== null && `${parsed.version}${parsed.build.length ? `+${parsed.build.join('.')}` : ''}` === version;
}

export const Semver = z.string().max(256).refine(isSemver, 'must be a semantic version MAJOR.MINOR.PATCH, optionally with -pre.release and +build');

/** Negative, zero or positive by precedence; `1.0.0+a` and `1.0.0+b` compare equal. */
export const compareSemver = (a: string, b: string): number => semver.compare(a, b);

/** An SDK createVersion takes the next patch (a pre-release's next patch is its release). */
export const nextPatch = (version: string): string => semver.inc(version, 'patch')!;
