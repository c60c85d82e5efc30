// Local mode only (localOnly routes, never deployed): the faucet of DESIGN.md §3 and the Solana JSON-RPC endpoint.
// The bank is imported on first use: litesvm and the SPL libraries add seconds to `npm start` for runs that never pay.
import type { JsonRpcCall } from '#adapters/local/solana-rpc.js';
import { solDecimals } from './networks.js';

/** What one faucet call gives when no amount is named. */
const defaultAmounts = { SOL: 1, USDC: 100 } as const;

export async function airdrop(input: { address: string; asset: 'SOL' | 'USDC'; amount?: number }) {
  const { localSolanaBank, localUsdcDecimals } = await import('#adapters/local/solana-bank.js');
  const bank = localSolanaBank();
  const amount = input.amount ?? defaultAmounts[input.asset];
  const decimals = input.asset === 'SOL' ? solDecimals : localUsdcDecimals;
  const atomicAmount = BigInt(Math.round(amount * 10 ** decimals));
  const { balance } = bank.airdrop(input.address, input.asset, atomicAmount);
  const mint = input.asset === 'SOL' ? 'native' : bank.usdcMint.toBase58();
  return { address: input.address, asset: input.asset, mint, amount, atomicAmount: atomicAmount.toString(), balance: balance.toString() };
}

export async function solanaRpc(call: JsonRpcCall) {
  const [{ localSolanaBank }, { answerSolanaRpc }] = await Promise.all([import('#adapters/local/solana-bank.js'), import('#adapters/local/solana-rpc.js')]);
  return answerSolanaRpc(localSolanaBank(), call);
}
