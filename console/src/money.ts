// One money format everywhere: amounts in USDC, 2 decimals from a cent up, and below a cent as many decimals as it
// takes (up to USDC's 6) so a per-call price never reads 0.00.

/** USDC has 6 decimals: atomic amounts (strings of micro-USDC, as payments carry them) divide by a million. */
export const fromAtomic = (atomic: unknown): number | undefined => {
  if (typeof atomic === 'number') return atomic / 1e6;
  if (typeof atomic !== 'string' || !/^\d+$/.test(atomic)) return undefined;
  return Number(atomic) / 1e6;
};

export function money(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  const size = Math.abs(value);
  if (size === 0 || size >= 0.01) return `${value.toFixed(2)} USDC`;
  const digits = Math.min(6, Math.max(3, 1 - Math.floor(Math.log10(size))));
  return `${value.toFixed(digits).replace(/(\.\d*?[1-9])0+$/, '$1')} USDC`;
}

/** The owner's share of a payment: the platform keeps a tenth. */
export const ownerShare = 0.9;
