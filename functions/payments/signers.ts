// The platform's two signing keys as one port: the fee payer (co-signs reference-client payments, pays payout fees)
// and the settlement account (the platform wallet, which signs payouts of owners' shares). Never asked to sign
// anything but a transaction the payment rules or the payout builder made.
import { type KeyObject, createPrivateKey, sign } from 'node:crypto';

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
