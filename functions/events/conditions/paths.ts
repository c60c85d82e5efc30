// Dotted paths into an event object (`content.text`, `mailapp.from.email`, `enrichment.tickers.length`),
// compiled once into a reader.

export type PathReader = (root: unknown) => unknown;

/** Letters, digits, `_`, `$` and `-` per segment; numeric segments index arrays. */
export const fieldPattern = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

type Step = { key: string; index: number | undefined };

function step(value: unknown, { key, index }: Step): unknown {
  if (Array.isArray(value)) {
    if (key === 'length') return value.length;
    return index === undefined ? undefined : value[index];
  }
  if (typeof value === 'string') return key === 'length' ? value.length : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  // Own properties only: `constructor` or `__proto__` never reach the prototype.
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

export function compilePath(path: string): PathReader {
  const steps: Step[] = path.split('.').map((key) => ({ key, index: /^\d+$/.test(key) ? Number(key) : undefined }));
  if (steps.length === 1) {
    const only = steps[0]!;
    return (root) => step(root, only);
  }
  return (root) => {
    let value = root;
    for (const next of steps) {
      if (value === undefined || value === null) return undefined;
      value = step(value, next);
    }
    return value;
  };
}
