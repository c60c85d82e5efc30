// The port between the payment rules and a Solana network: an RPC node on AWS, the embedded bank locally.
import type { SolanaNetwork } from './networks.js';

export interface LedgerInfo {
  network: SolanaNetwork;
  /** The USDC mint of this network (local mode: its own USDC-like mint). */
  usdcMint: string;
  /** Receives the platform's 10%. */
  platformWallet: string;
}

export type Settlement =
  | { status: 'confirmed'; blockHeight: number }
  /** The network refused or failed the transaction; `reason` is its error (BlockhashNotFound, InstructionError...). */
  | { status: 'failed'; reason: string }
  /** Not confirmed in time: it may still land, so it stays pending. */
  | { status: 'timeout' };

/** How a transaction the network knows ended. */
export type Landed = Exclude<Settlement, { status: 'timeout' }>;

export interface SolanaLedger {
  info(): Promise<LedgerInfo>;
  /** Whether a transaction with this recent blockhash can still land. */
  isBlockhashValid(blockhash: string): Promise<boolean>;
  /** Runs the transaction without landing it: would the network accept it now (funds, accounts, signatures)? */
  simulate(wireTransaction: Uint8Array): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Where a submitted transaction stands: undefined while the network does not know it (yet). */
  status(signature: string): Promise<Landed | undefined>;
  /** Submits a fully signed wire transaction and waits for confirmation for at most `timeoutMs`. */
  settle(wireTransaction: Uint8Array, signature: string, timeoutMs: number): Promise<Settlement>;
}
