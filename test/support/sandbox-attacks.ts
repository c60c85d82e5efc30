// What the sandbox attack suites aim at: a data directory laid out as `npm start` lays it out (admin key,
// credential key, DynamoDB Local's files, another tenant's staged code) with a sentinel in each, a secret in the
// server's environment, and a tally of attacks that got through, printed as the suite's summary line.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalScriptRuntime, createLocalScriptRuntime } from '../../functions/adapters/local/script-pool.js';
import type { RuntimeLabel } from '../../functions/scripts/model.js';
import { prepareCode } from '../../functions/scripts/runs/prepare.js';
import type { InvokeRequest } from '../../functions/scripts/runs/runtime-port.js';

export const sentinel = 'SENTINEL-7f3a9c';

export interface Target {
  dataDir: string;
  stageDir: string;
  devFile: string;
  keyFile: string;
  dynamoFile: string;
  /** Another tenant's deployed code, staged where the pool stages it. */
  otherCode: string;
}

export function plantTargets(): Target {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-data-'));
  chmodSync(dataDir, 0o755);
  const stageDir = join(dataDir, 'scripts');
  const devFile = join(dataDir, 'dev.json');
  const keyFile = join(dataDir, 'credentials.key');
  const dynamoFile = join(dataDir, 'dynamodb', 'shared-local-instance.db');
  const otherCode = join(stageDir, 'scr_other', '1-0000000000000000', 'script.cjs');
  mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  mkdirSync(join(stageDir, 'scr_other', '1-0000000000000000'), { recursive: true });
  writeFileSync(devFile, JSON.stringify({ adminKey: `adm_${sentinel}` }), { mode: 0o600 });
  writeFileSync(keyFile, `${sentinel}-credential-key`, { mode: 0o600 });
  writeFileSync(dynamoFile, `SQLite ${sentinel} api keys`);
  writeFileSync(otherCode, `// ${sentinel}\nexports.handler = async () => 'benign';\n`, { mode: 0o644 });
  process.env.PLATFORM_ATTACK_SECRET = `env-${sentinel}`;
  return { dataDir, stageDir, devFile, keyFile, dynamoFile, otherCode };
}

export const attackPool = (target: Target): LocalScriptRuntime =>
  createLocalScriptRuntime({ python: 'python3', stageDir: target.stageDir, functionPrefix: 'platform-script-', idleMs: 60_000, maxWorkers: 32 });

let counter = 0;
export async function attackRequest(runtime: RuntimeLabel, code: string, overrides: Partial<InvokeRequest> = {}): Promise<InvokeRequest> {
  const prepared = await prepareCode(runtime, code, 'python3');
  const scriptId = `scr_attack${process.pid}x${counter++}`;
  return {
    scriptId,
    version: 1,
    runtime,
    codeHash: `${scriptId}hash`,
    qualifier: 'live',
    code: async () => prepared,
    memoryMb: 128,
    timeoutMs: 10_000,
    event: { data: { serverPid: process.pid }, trigger: { type: 'manual', source: null, event: null } },
    context: { scriptId, executionId: 'exe_attack', userId: 'usr_attacker', customization: {} },
    callResource: async () => null,
    grant: {
      executionId: 'exe_attack',
      userId: 'usr_attacker',
      scriptId,
      allowedResources: [],
      limitUsd: 1,
      limitedBy: 'cost',
      memoryMb: 128,
      startedAt: Date.now(),
    },
    ...overrides,
  };
}

/** Attacks tried and those that got through; `summary()` is the line the suite prints. */
export function escapeTally(suite: string) {
  const escapes: string[] = [];
  let tried = 0;
  return {
    /** Records the attack; true when it got through (the test then fails on it). */
    record(name: string, escaped: boolean): boolean {
      tried += 1;
      if (escaped) escapes.push(name);
      return escaped;
    },
    summary: () => `${suite}: ${tried} attacks, sandbox escapes ${escapes.length}${escapes.length ? ` (${escapes.join('; ')})` : ''}`,
  };
}
