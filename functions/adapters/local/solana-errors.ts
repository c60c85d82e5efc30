// litesvm's transaction errors in the JSON shape Solana's RPC uses (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`).
import { createRequire } from 'node:module';
import type { FailedTransactionMetadata } from 'litesvm';

export type TransactionErrorJson = string | Record<string, unknown>;

// The enums are `const enum` in litesvm's typings but real objects in its CommonJS runtime.
const runtime = createRequire(import.meta.url)('litesvm/dist/internal.js') as {
  TransactionErrorFieldless: Record<string, number>;
  InstructionErrorFieldless: Record<string, number>;
};
const names = (values: Record<string, number>) => new Map(Object.entries(values).map(([name, value]) => [value, name]));
const transactionErrors = names(runtime.TransactionErrorFieldless);
const instructionErrors = names(runtime.InstructionErrorFieldless);

type LiteSvmError = ReturnType<FailedTransactionMetadata['err']>;

function instructionErrorJson(error: unknown): TransactionErrorJson {
  if (typeof error === 'number') return instructionErrors.get(error) ?? `InstructionError${error}`;
  const shaped = error as { code?: number; msg?: string };
  if (shaped.code !== undefined) return { Custom: shaped.code };
  return { BorshIoError: shaped.msg ?? '' };
}

export function transactionErrorJson(error: LiteSvmError): TransactionErrorJson {
  if (typeof error === 'number') return transactionErrors.get(error) ?? `TransactionError${error}`;
  const shaped = error as { index?: number; accountIndex?: number; err?: () => unknown };
  if (shaped.err) return { InstructionError: [shaped.index, instructionErrorJson(shaped.err())] };
  const kind = error.constructor.name.replace(/^TransactionError/, '');
  if (shaped.index !== undefined) return { [kind]: shaped.index };
  return { [kind]: { account_index: shaped.accountIndex } };
}

/** Transaction errors that stop a transaction before it lands; any other failure lands and pays its fee. */
export const isRejectedBeforeLanding = (error: TransactionErrorJson) => typeof error === 'string';

export const describeTransactionError = (error: TransactionErrorJson) => (typeof error === 'string' ? error : JSON.stringify(error));
