// Local mode's Solana network: an embedded bank (litesvm: real transaction processing, SPL Token and ATA programs)
// with a USDC-like mint at devnet USDC's address (so reference clients' default asset checks accept it), the platform
// wallet and the fee payer of reference-client payments. Slots follow the wall clock like a validator's (400 ms), so
// blockhashes expire after 150 slots; the state is saved under the data directory and survives restarts.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { address, getCompiledTransactionMessageDecoder, getTransactionDecoder, lamports } from '@solana/kit';
import { Keypair, PublicKey, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import {
  MINT_SIZE,
  MintLayout,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import bs58 from 'bs58';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { settings } from '#platform/settings.js';
import { usdcMints } from '#functions/payments/ports.js';
import { startedOnFirstUse } from './lifecycle.js';
import { type TransactionErrorJson, isRejectedBeforeLanding, transactionErrorJson } from './solana-errors.js';

const msPerSlot = 400;
/** A blockhash is good for 150 slots on Solana. */
const blockhashLifetimeSlots = 150n;
export const localUsdcDecimals = 6;
const faucetFloorLamports = 100_000_000n;
/** The fee payer is topped up to this at start: it pays reference-client payments' and payouts' fees and token-account rent. */
const feePayerStartLamports = 10_000_000_000n;
const maxRememberedSignatures = 100_000;

export interface BankAccount {
  lamports: bigint;
  owner: string;
  data: Uint8Array;
  executable: boolean;
}

export interface SimulateOptions {
  /** Solana RPC's `sigVerify` (the RPC defaults it to false): false runs a transaction whose signatures are missing, as a compute-unit estimate does. */
  sigVerify?: boolean;
  /** Solana RPC's `replaceRecentBlockhash`: runs it with the latest blockhash instead of its own. */
  replaceRecentBlockhash?: boolean;
}

export interface BankOutcome {
  signature: string;
  slot: bigint;
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
}

function loadOrCreateKeypair(path: string): Keypair {
  if (existsSync(path)) return Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(path, 'utf8')) as number[]));
  const keypair = Keypair.generate();
  // solana-keygen's file format, readable only by the owner: it is a wallet.
  writeFileSync(path, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600 });
  chmodSync(path, 0o600);
  return keypair;
}

const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

export class SolanaBank {
  readonly usdcMint = new PublicKey(usdcMints['solana-devnet']);
  private readonly blockhashes = new Map<string, bigint>();
  private readonly statuses = new Map<string, { slot: bigint; err: TransactionErrorJson | null }>();
  private readonly startedAt = Date.now();
  /** Pays the bank's own transactions (mint creation, faucet); topped up by airdrop, never persisted. */
  private readonly faucet = Keypair.generate();
  private readonly firstSlot: bigint;
  private warped = 0n;
  private saveTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly svm: LiteSVM,
    private readonly snapshotPath: string,
    readonly platformWallet: Keypair,
    /** Signs MintTo for the faucet: the mint sits at devnet USDC's address, whose real authority is Circle's. */
    readonly usdcMintAuthority: Keypair,
    readonly feePayer: Keypair,
  ) {
    this.firstSlot = svm.getClock().slot;
    this.blockhashes.set(svm.latestBlockhash(), this.firstSlot + blockhashLifetimeSlots);
  }

  static start(dataDir: string): SolanaBank {
    mkdirSync(dataDir, { recursive: true });
    const snapshotPath = join(dataDir, 'solana-bank.bin');
    const restored = existsSync(snapshotPath) ? LiteSVM.fromBytes(readFileSync(snapshotPath)) : new LiteSVM();
    // Blockhash lifetimes are kept here (150 slots of wall-clock time); litesvm alone knows only the latest one.
    const key = (name: string) => loadOrCreateKeypair(join(dataDir, name));
    const bank = new SolanaBank(
      restored.withBlockhashCheck(false),
      snapshotPath,
      key('platform-wallet.json'),
      key('usdc-mint-authority.json'),
      key('fee-payer.json'),
    );
    bank.ensureMintAndWallets();
    return bank;
  }

  /** Advances the slot to the wall clock (plus any warp), with a fresh blockhash when it moved. */
  slot(): bigint {
    const target = this.firstSlot + this.warped + BigInt(Math.floor((Date.now() - this.startedAt) / msPerSlot));
    const current = this.svm.getClock().slot;
    if (target <= current) return current;
    this.svm.warpToSlot(target);
    this.svm.expireBlockhash();
    this.blockhashes.set(this.svm.latestBlockhash(), target + blockhashLifetimeSlots);
    for (const [blockhash, lastValid] of this.blockhashes) if (lastValid < target) this.blockhashes.delete(blockhash);
    return target;
  }

  /** Moves the ledger forward, as solana-test-validator's warp does: blockhashes older than 150 slots expire. */
  warp(slots: bigint): void {
    this.warped += slots;
    this.slot();
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    this.slot();
    const blockhash = this.svm.latestBlockhash();
    return { blockhash, lastValidBlockHeight: this.blockhashes.get(blockhash)! };
  }

  isBlockhashValid(blockhash: string): boolean {
    const lastValid = this.blockhashes.get(blockhash);
    return lastValid !== undefined && lastValid >= this.slot();
  }

  getAccount(owner: string): BankAccount | null {
    const account = this.svm.getAccount(address(owner));
    if (!account.exists) return null;
    return { lamports: account.lamports, owner: account.programAddress, data: account.data as Uint8Array, executable: account.executable };
  }

  minimumBalanceForRentExemption(dataLength: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(dataLength);
  }

  signatureStatus(signature: string): { slot: bigint; err: TransactionErrorJson | null } | undefined {
    return this.statuses.get(signature);
  }

  /** Runs a transaction without committing it; blockhash and replay checks as `send` does them, unless told otherwise. */
  simulate(
    wire: Uint8Array,
    options: SimulateOptions = {},
  ): Omit<BankOutcome, 'slot'> & { replacementBlockhash?: { blockhash: string; lastValidBlockHeight: bigint } } {
    const latest = options.replaceRecentBlockhash ? this.latestBlockhash() : undefined;
    const { transaction, signature, precheck } = this.decode(latest ? withBlockhash(wire, latest.blockhash) : wire);
    if (precheck) return { signature, err: precheck, logs: [], unitsConsumed: 0n };
    if (options.sigVerify === false) this.svm.withSigverify(false);
    let result: ReturnType<LiteSVM['simulateTransaction']>;
    try {
      result = this.svm.simulateTransaction(transaction);
    } finally {
      if (options.sigVerify === false) this.svm.withSigverify(true);
    }
    const meta = result.meta();
    const err = result instanceof FailedTransactionMetadata ? transactionErrorJson(result.err()) : null;
    return { signature, err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), ...(latest && { replacementBlockhash: latest }) };
  }

  /**
   * Processes a signed wire transaction. With preflight (the RPC default) a failing transaction is only simulated,
   * as a validator's RPC refuses it; without, it lands failed and pays its fee. `landed` says which happened.
   */
  send(wire: Uint8Array, { preflight = true } = {}): BankOutcome & { landed: boolean } {
    const slot = this.slot();
    if (preflight) {
      const simulated = this.simulate(wire);
      if (simulated.err) return { ...simulated, slot, landed: false };
    }
    const { transaction, signature, precheck } = this.decode(wire);
    if (precheck) return { signature, slot, err: precheck, logs: [], unitsConsumed: 0n, landed: false };
    const result = this.svm.sendTransaction(transaction);
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
    const err = result instanceof FailedTransactionMetadata ? transactionErrorJson(result.err()) : null;
    const landed = err === null || !isRejectedBeforeLanding(err);
    if (landed) this.remember(signature, slot, err);
    return { signature, slot, err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), landed };
  }

  /** The faucet: SOL straight from the bank, USDC minted by the local mint's own authority. */
  airdrop(owner: string, asset: 'SOL' | 'USDC', atomicAmount: bigint): { signature: string; balance: bigint } {
    if (asset === 'SOL') {
      const slot = this.slot();
      const result = this.svm.airdrop(address(owner), lamports(atomicAmount));
      if (!result || result instanceof FailedTransactionMetadata)
        throw new Error(`local airdrop to ${owner} failed: ${result ? JSON.stringify(transactionErrorJson(result.err())) : 'no result'}`);
      const signature = bs58.encode(result.signature());
      this.remember(signature, slot, null);
      return { signature, balance: this.getAccount(owner)?.lamports ?? 0n };
    }
    const mint = this.usdcMint;
    const wallet = new PublicKey(owner);
    const account = getAssociatedTokenAddressSync(mint, wallet, true);
    const outcome = this.run(
      [
        createAssociatedTokenAccountIdempotentInstruction(this.faucet.publicKey, account, wallet, mint),
        createMintToCheckedInstruction(mint, account, this.usdcMintAuthority.publicKey, atomicAmount, localUsdcDecimals),
      ],
      [this.usdcMintAuthority],
    );
    const data = this.getAccount(account.toBase58())?.data;
    return { signature: outcome.signature, balance: data ? new DataView(data.buffer, data.byteOffset).getBigUint64(64, true) : 0n };
  }

  /** Writes the state now; called on shutdown and shortly after changes. */
  save(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.svm.saveToFile(this.snapshotPath);
  }

  private decode(wire: Uint8Array) {
    const transaction = transactionDecoder.decode(wire);
    const signature = bs58.encode(Object.values(transaction.signatures)[0] ?? new Uint8Array(64));
    const blockhash = messageDecoder.decode(transaction.messageBytes).lifetimeToken;
    const precheck = this.statuses.has(signature) ? 'AlreadyProcessed' : this.isBlockhashValid(blockhash) ? undefined : 'BlockhashNotFound';
    return { transaction, signature, precheck };
  }

  private remember(signature: string, slot: bigint, err: TransactionErrorJson | null) {
    if (this.statuses.size >= maxRememberedSignatures) this.statuses.delete(this.statuses.keys().next().value!);
    this.statuses.set(signature, { slot, err });
    this.scheduleSave();
  }

  private scheduleSave() {
    this.saveTimer ??= setTimeout(() => this.save(), 1000).unref();
  }

  /** A transaction of the bank's own, paid by the faucet keypair. */
  private run(instructions: TransactionInstruction[], extraSigners: Keypair[]): BankOutcome {
    const payer = this.faucet;
    if ((this.getAccount(payer.publicKey.toBase58())?.lamports ?? 0n) < faucetFloorLamports)
      this.svm.airdrop(address(payer.publicKey.toBase58()), lamports(100n * faucetFloorLamports));
    const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: this.latestBlockhash().blockhash, instructions }).compileToV0Message();
    const transaction = new VersionedTransaction(message);
    transaction.sign([payer, ...extraSigners]);
    const outcome = this.send(transaction.serialize());
    if (outcome.err) throw new Error(`local bank transaction failed: ${JSON.stringify(outcome.err)} ${outcome.logs.join(' | ')}`);
    return outcome;
  }

  private ensureMintAndWallets() {
    if (!this.getAccount(this.usdcMint.toBase58())) {
      const data = Buffer.alloc(MINT_SIZE);
      MintLayout.encode(
        {
          mintAuthorityOption: 1,
          mintAuthority: this.usdcMintAuthority.publicKey,
          supply: 0n,
          decimals: localUsdcDecimals,
          isInitialized: true,
          freezeAuthorityOption: 0,
          freezeAuthority: PublicKey.default,
        },
        data,
      );
      const rent = this.minimumBalanceForRentExemption(BigInt(MINT_SIZE));
      this.svm.setAccount({
        address: address(this.usdcMint.toBase58()),
        lamports: lamports(rent),
        programAddress: address(TOKEN_PROGRAM_ID.toBase58()),
        executable: false,
        data,
        space: BigInt(MINT_SIZE),
      });
    }
    // Rent-exempt from the start, so the platform can receive small SOL fees.
    const wallet = this.platformWallet.publicKey.toBase58();
    if (!this.getAccount(wallet)) this.svm.airdrop(address(wallet), lamports(1_000_000_000n));
    // Reference clients may not create the settlement account's token account: it has to exist, as on a real network.
    const settlement = getAssociatedTokenAddressSync(this.usdcMint, this.platformWallet.publicKey, true);
    if (!this.getAccount(settlement.toBase58()))
      this.run([createAssociatedTokenAccountIdempotentInstruction(this.faucet.publicKey, settlement, this.platformWallet.publicKey, this.usdcMint)], []);
    const feePayer = this.feePayer.publicKey.toBase58();
    const held = this.getAccount(feePayer)?.lamports ?? 0n;
    if (held < feePayerStartLamports) this.svm.airdrop(address(feePayer), lamports(feePayerStartLamports - held));
  }
}

/** The wire transaction with another recent blockhash; signatures are left as they are (they no longer verify). */
function withBlockhash(wire: Uint8Array, blockhash: string): Uint8Array {
  const copy = Uint8Array.from(wire);
  let offset = 0;
  const shortVec = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = copy[offset++]!;
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  const signatures = shortVec();
  offset += signatures * 64;
  if (copy[offset]! & 0x80) offset += 1;
  offset += 3;
  const accounts = shortVec();
  offset += accounts * 32;
  copy.set(bs58.decode(blockhash), offset);
  return copy;
}

/** The one bank of this process, started on first use and saved and dropped at local shutdown. */
export const localSolanaBank: () => SolanaBank = startedOnFirstUse(
  () => SolanaBank.start(resolve(settings.dataDir)),
  (bank) => bank.save(),
);
