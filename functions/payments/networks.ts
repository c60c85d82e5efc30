// Solana facts the payment rules rest on: networks, program ids, the 90/10 split, USD to atomic units.

export const networks = ['solana', 'solana-devnet'] as const;
export type SolanaNetwork = (typeof networks)[number];

/** x402 v2 names networks by CAIP-2 (the genesis hash prefix); v1 by these short names. */
export const caip2Networks: Record<SolanaNetwork, string> = {
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana-devnet': 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
};

export type X402Version = 1 | 2;

/** A network's name as each x402 version writes it. */
export const networkName = (network: SolanaNetwork, version: X402Version) => (version === 2 ? caip2Networks[network] : network);

/** The native coin has no mint; x402 and wallets name it by the wrapped-SOL mint. Paid with System transfers. */
export const nativeSolMint = 'So11111111111111111111111111111111111111112';

export const programIds = {
  system: '11111111111111111111111111111111',
  token: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  associatedToken: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  computeBudget: 'ComputeBudget111111111111111111111111111111',
  memo: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  memoV1: 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
} as const;

export const usdcDecimals = 6;
export const solDecimals = 9;

/** 90% to the resource owner, 10% to the platform. */
export const serverFeePercentage = 10;

/** The platform's share rounds down, so the owner never receives less than 90%. */
export function splitAmount(total: bigint): { agentOwnerAmount: bigint; serverFeeAmount: bigint } {
  const serverFeeAmount = (total * BigInt(serverFeePercentage)) / 100n;
  return { agentOwnerAmount: total - serverFeeAmount, serverFeeAmount };
}

/** USD rounded to micro-dollars first, so 0.01 is exactly 10,000 and float noise never adds a unit. */
const microUsd = (usd: number) => BigInt(Math.round(usd * 1_000_000));

/** USDC is 1:1 with USD at 6 decimals. */
export const usdToUsdc = (usd: number): bigint => microUsd(usd);

/** Lamports for a USD price at `solPriceUsd`, rounded up so the seller is never short. */
export function usdToLamports(usd: number, solPriceUsd: number): bigint {
  const priceMicroUsd = microUsd(solPriceUsd);
  return (microUsd(usd) * 1_000_000_000n + priceMicroUsd - 1n) / priceMicroUsd;
}

/** Micro-USDC worth `lamports` at `solPriceUsd`, rounded up so what the fee payer spends is always covered. */
export function lamportsToUsdc(lamports: bigint, solPriceUsd: number): bigint {
  return (lamports * microUsd(solPriceUsd) + 999_999_999n) / 1_000_000_000n;
}
