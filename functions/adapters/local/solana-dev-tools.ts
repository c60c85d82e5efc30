// Local mode only (localOnly routes, never deployed): the faucet and the Solana JSON-RPC endpoint over the embedded
// bank, served to the payments area through the platform root. The bank is imported on first use: litesvm and the SPL
// libraries add seconds to `npm start` for runs that never pay.
import type { SolanaDevTools } from '#functions/app/platform.js';
import type { JsonRpcCall } from './solana-rpc.js';

/** What one faucet call gives when no amount is named. */
const defaultAmounts = { SOL: 1, USDC: 100 } as const;

async function airdrop(input: { address: string; asset: 'SOL' | 'USDC'; amount?: number }) {
  const [{ localSolanaBank, localUsdcDecimals }, { LAMPORTS_PER_SOL }] = await Promise.all([import('./solana-bank.js'), import('@solana/web3.js')]);
  const bank = localSolanaBank();
  const amount = input.amount ?? defaultAmounts[input.asset];
  const unit = input.asset === 'SOL' ? LAMPORTS_PER_SOL : 10 ** localUsdcDecimals;
  const atomicAmount = BigInt(Math.round(amount * unit));
  const { balance } = bank.airdrop(input.address, input.asset, atomicAmount);
  const mint = input.asset === 'SOL' ? 'native' : bank.usdcMint.toBase58();
  return { address: input.address, asset: input.asset, mint, amount, atomicAmount: atomicAmount.toString(), balance: balance.toString() };
}

async function solanaRpc(call: JsonRpcCall) {
  const [{ localSolanaBank }, { answerSolanaRpc }] = await Promise.all([import('./solana-bank.js'), import('./solana-rpc.js')]);
  return answerSolanaRpc(localSolanaBank(), call);
}

export const solanaDevTools: SolanaDevTools = { airdrop, solanaRpc };
