// Enough of Solana's JSON-RPC over the local bank for @solana/web3.js `Connection` clients (no websockets: poll
// getSignatureStatuses instead of confirmTransaction's subscriptions).
import bs58 from 'bs58';
import { type SolanaBank, localUsdcDecimals } from './solana-bank.js';
import { describeTransactionError } from './solana-errors.js';

type Params = unknown[];

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const invalidParams = (message: string) => new RpcError(-32602, `Invalid params: ${message}`);

function stringAt(params: Params, index: number, what: string): string {
  const value = params[index];
  if (typeof value !== 'string' || value.length === 0) throw invalidParams(`${what} (parameter ${index}) must be a string`);
  return value;
}

const configAt = (params: Params, index: number) => (params[index] && typeof params[index] === 'object' ? (params[index] as Record<string, unknown>) : {});

function isAddress(value: string): boolean {
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}

function addressAt(params: Params, index: number): string {
  const value = stringAt(params, index, 'address');
  if (!isAddress(value)) throw invalidParams(`${value} is not a base58 address`);
  return value;
}

/** Decodes the transaction parameter and hands it to the bank; bytes that are no transaction are invalid params. */
function withTransaction<T>(params: Params, run: (wire: Uint8Array) => T): T {
  const encoded = stringAt(params, 0, 'transaction');
  const encoding = configAt(params, 1).encoding ?? 'base58';
  let wire: Uint8Array;
  try {
    wire = encoding === 'base64' ? Buffer.from(encoded, 'base64') : bs58.decode(encoded);
  } catch {
    throw invalidParams(`transaction is not ${String(encoding)}`);
  }
  try {
    return run(wire);
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw invalidParams(`failed to deserialize the transaction: ${(error as Error).message}`);
  }
}

/** Solana's account JSON: data as [encoded, encoding]; base64 unless base58 is asked for (jsonParsed falls back to base64). */
function accountJson(bank: SolanaBank, owner: string, encoding: unknown) {
  const account = bank.getAccount(owner);
  if (!account) return null;
  const base58 = encoding === undefined || encoding === 'base58';
  return {
    data: base58 ? [bs58.encode(account.data), 'base58'] : [Buffer.from(account.data).toString('base64'), 'base64'],
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.owner,
    rentEpoch: 0,
    space: account.data.length,
  };
}

/** SPL token account layout: mint at 0, amount (u64 LE) at 64; a mint keeps its decimals at 44. */
function tokenBalance(bank: SolanaBank, owner: string) {
  const account = bank.getAccount(owner);
  if (!account || account.data.length < 165) throw invalidParams('could not find token account');
  const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  const mint = bs58.encode(account.data.subarray(0, 32));
  const decimals = bank.getAccount(mint)?.data[44] ?? localUsdcDecimals;
  const amount = view.getBigUint64(64, true);
  const uiAmountString = (Number(amount) / 10 ** decimals).toString();
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

const simulationError = (err: NonNullable<ReturnType<SolanaBank['simulate']>['err']>, logs: string[], unitsConsumed: bigint) =>
  new RpcError(-32002, `Transaction simulation failed: ${describeTransactionError(err)}`, {
    err,
    logs,
    accounts: null,
    unitsConsumed: Number(unitsConsumed),
    returnData: null,
  });

const methods: Record<string, (bank: SolanaBank, params: Params, withContext: (value: unknown) => unknown) => unknown> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 0 }),
  getSlot: (bank) => Number(bank.slot()),
  // Every local slot holds a block, so block height and slot are one number.
  getBlockHeight: (bank) => Number(bank.slot()),
  getLatestBlockhash: (bank, _params, withContext) => {
    const { blockhash, lastValidBlockHeight } = bank.latestBlockhash();
    return withContext({ blockhash, lastValidBlockHeight: Number(lastValidBlockHeight) });
  },
  getRecentBlockhash: (bank, _params, withContext) =>
    withContext({ blockhash: bank.latestBlockhash().blockhash, feeCalculator: { lamportsPerSignature: 5000 } }),
  isBlockhashValid: (bank, params, withContext) => withContext(bank.isBlockhashValid(stringAt(params, 0, 'blockhash'))),
  getBalance: (bank, params, withContext) => withContext(Number(bank.getAccount(addressAt(params, 0))?.lamports ?? 0n)),
  getAccountInfo: (bank, params, withContext) => withContext(accountJson(bank, addressAt(params, 0), configAt(params, 1).encoding)),
  getMultipleAccounts: (bank, params, withContext) => {
    const addresses = params[0];
    if (!Array.isArray(addresses) || !addresses.every((value) => typeof value === 'string' && isAddress(value)))
      throw invalidParams('expected an array of addresses');
    return withContext(addresses.map((value: string) => accountJson(bank, value, configAt(params, 1).encoding)));
  },
  getTokenAccountBalance: (bank, params, withContext) => withContext(tokenBalance(bank, addressAt(params, 0))),
  getMinimumBalanceForRentExemption: (bank, params) => {
    const length = params[0];
    if (!Number.isInteger(length) || (length as number) < 0) throw invalidParams('data length must be a non-negative integer');
    return Number(bank.minimumBalanceForRentExemption(BigInt(length as number)));
  },
  getBlock: (bank, params) => {
    const slot = params[0];
    if (!Number.isInteger(slot)) throw invalidParams('slot must be an integer');
    const { blockhash } = bank.latestBlockhash();
    return { blockHeight: slot, blockTime: null, blockhash, previousBlockhash: blockhash, parentSlot: (slot as number) - 1 };
  },
  simulateTransaction: (bank, params, withContext) => {
    const options = configAt(params, 1);
    const { err, logs, unitsConsumed, replacementBlockhash } = withTransaction(params, (wire) =>
      bank.simulate(wire, { sigVerify: options.sigVerify === true, replaceRecentBlockhash: options.replaceRecentBlockhash === true }),
    );
    const replaced = replacementBlockhash && {
      replacementBlockhash: { blockhash: replacementBlockhash.blockhash, lastValidBlockHeight: Number(replacementBlockhash.lastValidBlockHeight) },
    };
    return withContext({ err, logs, accounts: null, unitsConsumed: Number(unitsConsumed), returnData: null, ...replaced });
  },
  sendTransaction: (bank, params) => {
    return withTransaction(params, (wire) => {
      const outcome = bank.send(wire, { preflight: configAt(params, 1).skipPreflight !== true });
      if (!outcome.landed && outcome.err) throw simulationError(outcome.err, outcome.logs, outcome.unitsConsumed);
      return outcome.signature;
    });
  },
  getSignatureStatuses: (bank, params, withContext) => {
    const signatures = params[0];
    if (!Array.isArray(signatures) || signatures.length > 256) throw invalidParams('expected an array of at most 256 signatures');
    return withContext(
      signatures.map((signature) => {
        const status = typeof signature === 'string' ? bank.signatureStatus(signature) : undefined;
        if (!status) return null;
        return {
          slot: Number(status.slot),
          confirmations: null,
          err: status.err,
          status: status.err ? { Err: status.err } : { Ok: null },
          confirmationStatus: 'finalized',
        };
      }),
    );
  },
  requestAirdrop: (bank, params) => {
    const amount = params[1];
    if (!Number.isSafeInteger(amount) || (amount as number) <= 0) throw invalidParams('lamports must be a positive integer');
    return bank.airdrop(addressAt(params, 0), 'SOL', BigInt(amount as number)).signature;
  },
};

export interface JsonRpcCall {
  id?: string | number | null;
  method: string;
  params?: unknown[];
}

/** One JSON-RPC 2.0 answer: `result`, or `error` with Solana's codes. */
export function answerSolanaRpc(bank: SolanaBank, call: JsonRpcCall) {
  const id = call.id ?? null;
  const method = methods[call.method];
  if (!method) return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${call.method}` } };
  try {
    const withContext = (value: unknown) => ({ context: { slot: Number(bank.slot()), apiVersion: '2.2.0' }, value });
    return { jsonrpc: '2.0', id, result: method(bank, call.params ?? [], withContext) };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) } };
  }
}
