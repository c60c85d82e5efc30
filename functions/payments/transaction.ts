// Wire-format Solana transactions (legacy and v0): decoding into what the payment rules look at, and ed25519 checks.
import { type KeyObject, createPublicKey, verify } from 'node:crypto';
import bs58 from 'bs58';

export interface DecodedInstruction {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}

export interface DecodedTransaction {
  /** The first signature, base58: the transaction's id on the network and the payment's txHash. */
  signature: string;
  /** Accounts that must sign, fee payer first. */
  signers: string[];
  recentBlockhash: string;
  instructions: DecodedInstruction[];
  wire: Uint8Array;
}

export class MalformedTransactionError extends Error {}

const signatureBytes = 64;
/** Solana's packet size: no valid transaction is longer. */
const maxTransactionBytes = 1232;
/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows. */
const ed25519SpkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');

/** Solana's compact-u16 length prefix. */
function readShortVec(bytes: Uint8Array, offset: number): [value: number, next: number] {
  let value = 0;
  for (let index = 0; index < 3; index++) {
    const byte = bytes[offset + index];
    if (byte === undefined) throw new MalformedTransactionError('truncated length prefix');
    value |= (byte & 0x7f) << (7 * index);
    if ((byte & 0x80) === 0) return [value, offset + index + 1];
  }
  throw new MalformedTransactionError('length prefix longer than 3 bytes');
}

/** Reads the wire format directly: the general-purpose codecs cost more than all the payment rules together. */
export function decodeTransaction(wire: Uint8Array): DecodedTransaction {
  if (wire.length > maxTransactionBytes) throw new MalformedTransactionError(`longer than ${maxTransactionBytes} bytes`);
  const [signatureCount, signaturesStart] = readShortVec(wire, 0);
  let offset = signaturesStart + signatureCount * signatureBytes;
  if (signatureCount === 0 || offset >= wire.length) throw new MalformedTransactionError('no signatures or no message');
  const need = (bytes: number) => {
    if (offset + bytes > wire.length) throw new MalformedTransactionError('truncated message');
    const start = offset;
    offset += bytes;
    return start;
  };
  const readLength = () => {
    const [value, next] = readShortVec(wire, offset);
    offset = next;
    return value;
  };
  // v0 messages start with 0x80 | version; legacy ones with the signer count, which is below 128.
  const versioned = (wire[offset]! & 0x80) !== 0;
  if (versioned && wire[need(1)] !== 0x80)
    throw new MalformedTransactionError(`transaction version ${wire[offset - 1]! & 0x7f} is not accepted; use legacy or v0`);
  const header = need(3);
  if (wire[header] !== signatureCount) throw new MalformedTransactionError('signature count differs from the signer count');
  const accounts = Array.from({ length: readLength() }, () => bs58.encode(wire.subarray(need(32), offset)));
  if (accounts.length < signatureCount) throw new MalformedTransactionError('fewer accounts than signers');
  const recentBlockhash = bs58.encode(wire.subarray(need(32), offset));
  const account = (index: number) => {
    const address = accounts[index];
    if (address === undefined) throw new MalformedTransactionError(`account index ${index} out of range`);
    return address;
  };
  const instructions = Array.from({ length: readLength() }, (): DecodedInstruction => {
    const programId = account(wire[need(1)]!);
    const indices = wire.subarray(need(readLength()), offset);
    const data = wire.subarray(need(readLength()), offset);
    return { programId, accounts: Array.from(indices, account), data };
  });
  // Accounts behind lookup tables cannot be checked without fetching the tables; a payment needs none.
  if (versioned && readLength() !== 0) throw new MalformedTransactionError('address lookup tables are not accepted in a payment');
  if (offset !== wire.length) throw new MalformedTransactionError('bytes after the message');
  return {
    signature: bs58.encode(wire.subarray(signaturesStart, signaturesStart + signatureBytes)),
    signers: accounts.slice(0, signatureCount),
    recentBlockhash,
    instructions,
    wire,
  };
}

const keyCache = new Map<string, KeyObject>();
const keyCacheSize = 10_000;

/** Building a KeyObject costs about as much as verifying with it, and payers come back. */
function publicKeyOf(address: string): KeyObject {
  let key = keyCache.get(address);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([ed25519SpkiPrefix, bs58.decode(address)]), format: 'der', type: 'spki' });
    if (keyCache.size >= keyCacheSize) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(address, key);
  }
  return key;
}

/** The signed message bytes of a wire transaction. */
export function messageBytes(transaction: DecodedTransaction): Uint8Array {
  const [, signaturesStart] = readShortVec(transaction.wire, 0);
  return transaction.wire.subarray(signaturesStart + transaction.signers.length * signatureBytes);
}

/** The transaction with `signature` put in the slot of `signer`, decoded again (its id is now its first signature). */
export function withSignature(transaction: DecodedTransaction, signer: string, signature: Uint8Array): DecodedTransaction {
  const slot = transaction.signers.indexOf(signer);
  if (slot < 0) throw new MalformedTransactionError(`${signer} is not a signer of the transaction`);
  const [, signaturesStart] = readShortVec(transaction.wire, 0);
  const wire = Uint8Array.from(transaction.wire);
  wire.set(signature, signaturesStart + slot * signatureBytes);
  return decodeTransaction(wire);
}

/** Every required signer, but `unsignedYet` (the fee payer the platform adds itself), signed exactly these message bytes. */
export function hasValidSignatures(transaction: DecodedTransaction, unsignedYet?: string): boolean {
  const [, signaturesStart] = readShortVec(transaction.wire, 0);
  const message = messageBytes(transaction);
  return transaction.signers.every((signer, index) => {
    if (signer === unsignedYet) return true;
    const start = signaturesStart + index * signatureBytes;
    return verify(null, message, publicKeyOf(signer), transaction.wire.subarray(start, start + signatureBytes));
  });
}
