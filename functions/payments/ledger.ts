// The port between the payment rules and a Solana network: an RPC node on AWS, the embedded bank locally.
import type { SolanaNetwork } from './networks.js';

export interface LedgerInfo {
  network: SolanaNetwork;
  /** The USDC mint of this network (local mode: its own USDC-like mint). */
  usdcMint: string;
  /** Receives the platform's 10%, and holds reference-client payments until they are paid out (the settlement account). */
  platformWallet: string;
  /** Pays the fees of reference-client payments and payouts; holds only SOL. */
  feePayer: string;
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
  /** The blockhash a new transaction should name. */
  latestBlockhash(): Promise<string>;
  /** Lamports held by an account; 0 when it does not exist. */
  lamports(address: string): Promise<bigint>;
  /** The smallest balance of an account without data that the network keeps (rent exemption). */
  rentExemptMinimum(): Promise<bigint>;
  /** Runs the transaction without landing it: would the network accept it now (funds, accounts, signatures)? */
  simulate(wireTransaction: Uint8Array): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Where a submitted transaction stands: undefined while the network does not know it (yet). */
  status(signature: string): Promise<Landed | undefined>;
  /** Submits a fully signed wire transaction and waits for confirmation for at most `timeoutMs`. */
  settle(wireTransaction: Uint8Array, signature: string, timeoutMs: number): Promise<Settlement>;
}
