// Where the CLI's base URL and key come from, the typed client built on them, and how answers are printed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { PlatformError, UnreachableError, createPlatformClient, type PlatformClient } from '../typescript/src/index.js';

export interface Settings {
  baseUrl: string;
  apiKey?: string;
  /** Where the values came from, for `configure` without arguments. */
  source: string;
}

export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
}

/** A command's own options with the global ones (`--base-url`, `--api-key`, `--json`). */
export const optionsOf = (command: Command) => command.optsWithGlobals<GlobalOptions & Record<string, string>>();

export const configFile = () => process.env.PLATFORM_CONFIG ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'platform', 'config.json');
const devFile = () => resolve(process.env.DATA_DIR ?? '.data', 'dev.json');

const readJson = (path: string): Record<string, string> => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>) : {});

/** Flags, then PLATFORM_BASE_URL / PLATFORM_API_KEY, then `platform configure`'s file, then the local dev account. */
export function settings(options: GlobalOptions): Settings {
  const saved = readJson(configFile());
  const dev = readJson(devFile());
  const layers: Array<[string, { baseUrl?: string; apiKey?: string }]> = [
    ['flags', { baseUrl: options.baseUrl, apiKey: options.apiKey }],
    ['environment', { baseUrl: process.env.PLATFORM_BASE_URL, apiKey: process.env.PLATFORM_API_KEY }],
    [configFile(), saved],
    [devFile(), dev],
  ];
  const baseUrl = layers.find(([, layer]) => layer.baseUrl)?.[1].baseUrl;
  const keyLayer = layers.find(([, layer]) => layer.apiKey);
  if (!baseUrl)
    throw new UsageError(
      'no base URL: run `platform configure --base-url <url> --api-key <key>`, set PLATFORM_BASE_URL, or start the local platform (`npm start` writes .data/dev.json)',
    );
  return { baseUrl, apiKey: keyLayer?.[1].apiKey, source: keyLayer?.[0] ?? 'none' };
}

export function saveSettings(values: { baseUrl?: string; apiKey?: string }): string {
  const path = configFile();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ ...readJson(path), ...values }, null, 2)}\n`, { mode: 0o600 });
  return path;
}

/**
 * The exit codes, the one list of them (README's CLI section shows the same): a script tells what went wrong apart
 * without reading the message.
 */
export const exitCodes = {
  ok: 0,
  /** The platform answered with an error (the envelope's code and message are printed). */
  refused: 1,
  /** The command line is wrong: an unknown command or option, a missing argument, a file that is not there. */
  usage: 2,
  /** The platform ran what was asked and the run failed (a script or flow run that ended failed or timed out). */
  runFailed: 3,
  /** No answer at all: the platform could not be reached at its base URL. */
  unreachable: 4,
} as const;

/** A run (script or flow) that ended without success: the command prints it, then exits with runFailed. */
export const failedRun = (status: unknown) => ['failed', 'error', 'timeout'].includes(String(status));

/** A mistake in how the command was called: printed as is, exit code 2. */
export class UsageError extends Error {}

export const clientFor = (options: GlobalOptions): PlatformClient => {
  const { baseUrl, apiKey } = settings(options);
  return createPlatformClient({ baseUrl, apiKey });
};

/** `--json`: the data as JSON for scripts; otherwise the human lines. */
export function output(options: GlobalOptions, data: unknown, human: () => string | string[]): void {
  if (options.json) console.log(JSON.stringify(data, null, 2));
  else console.log([human()].flat().join('\n'));
}

/** `--idempotency-key`: a repeat of the command within 24 hours answers the first answer and runs nothing again. */
export const idempotencyKeyOption = [
  '--idempotency-key <key>',
  'a key (1-255 printable ASCII characters): repeating the command with it within 24 hours runs nothing again',
] as const;

/** The request option that sends `--idempotency-key` as the Idempotency-Key header. */
export const idempotencyHeader = (options: Record<string, unknown>) =>
  typeof options.idempotencyKey === 'string' ? { headers: { 'Idempotency-Key': options.idempotencyKey } } : {};

export function parseJsonOption(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--${name} is not JSON: ${(error as Error).message}`);
  }
}

/** One line per failure, with its exit code (exitCodes). */
export function reportFailure(error: unknown, json: boolean): number {
  if (error instanceof PlatformError) {
    if (json) console.error(JSON.stringify({ status: error.status, code: error.code, message: error.message, details: error.details }));
    else console.error(`error: ${error.code} (${error.status}): ${error.message}${error.details?.field ? ` [field ${String(error.details.field)}]` : ''}`);
    return exitCodes.refused;
  }
  if (error instanceof UnreachableError) {
    if (json) console.error(JSON.stringify({ code: 'UNREACHABLE', url: error.url, message: error.message }));
    else console.error(`error: ${error.message}`);
    return exitCodes.unreachable;
  }
  if (error instanceof UsageError) {
    console.error(`error: ${error.message}`);
    return exitCodes.usage;
  }
  console.error(`error: ${(error as Error).message ?? String(error)}`);
  return exitCodes.refused;
}
