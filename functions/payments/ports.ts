// What the payments area needs from the outside world; functions/adapters/{aws,local} implement each: the ledger (a
// Solana network: an RPC node on AWS, the embedded bank locally), the platform's signing keys and the payout trigger.
import { type KeyObject, createPrivateKey, sign } from 'node:crypto';
import type { SolanaNetwork } from './networks.js';

/** Circle's USDC mints, the `usdcMint` a ledger's info names on each network; local mode's bank mints at devnet's address. */
export const usdcMints: Record<SolanaNetwork, string> = {
  solana: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  'solana-devnet': '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
};

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
  /** The smallest balance of an account of `dataBytes` (default 0) that the network keeps (rent exemption). */
  rentExemptMinimum(dataBytes?: number): Promise<bigint>;
  /** Runs the transaction without landing it: would the network accept it now (funds, accounts, signatures)? */
  simulate(wireTransaction: Uint8Array): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Where a submitted transaction stands: undefined while the network does not know it (yet). */
  status(signature: string): Promise<Landed | undefined>;
  /** Submits a fully signed wire transaction and waits for confirmation for at most `timeoutMs`. */
  settle(wireTransaction: Uint8Array, signature: string, timeoutMs: number): Promise<Settlement>;
}

// The platform's two signing keys as one port: the fee payer (co-signs reference-client payments, pays payout fees)
// and the settlement account (the platform wallet, which signs payouts of owners' shares). Never asked to sign
// anything but a transaction the payment rules or the payout builder made.
export interface PlatformSigners {
  /** Ed25519 signature of `message` by the fee payer. */
  signAsFeePayer(message: Uint8Array): Promise<Uint8Array>;
  /** Ed25519 signature of `message` by the settlement account. */
  signAsSettlement(message: Uint8Array): Promise<Uint8Array>;
}

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows. */
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A Solana 64-byte secret key (seed then public key) as a signing key. */
export function signingKey(secretKey: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([ed25519Pkcs8Prefix, secretKey.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
}

export const signWith = (key: KeyObject, message: Uint8Array): Uint8Array => new Uint8Array(sign(null, message, key));

/** The payload the payout function accepts besides its schedule's: one owner and asset to pay now. */
export interface PayoutRequest {
  payoutRun: { ownerId: string; asset: string };
}
