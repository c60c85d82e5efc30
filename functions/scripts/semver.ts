// MAJOR.MINOR.PATCH of script versions (SPEC.md Versioning).

const parts = (version: string) => version.split('.').map(Number) as [number, number, number];

export function compareSemver(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** DESIGN.md §3: an SDK createVersion takes the next patch. */
export function nextPatch(version: string): string {
  const [major, minor, patch] = parts(version);
  return `${major}.${minor}.${patch + 1}`;
}
