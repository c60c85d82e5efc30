import { join } from 'node:path';
import { config } from '#platform/config.js';
import type { ScriptRuntime } from '#functions/scripts/runtime-port.js';
import { lambdaScriptRuntime } from './aws/script-functions.js';
import { startedOnFirstUse } from './local/lifecycle.js';
import { type LocalScriptRuntime, createLocalScriptRuntime } from './local/script-pool.js';

/** The local pool starts on first use and stops with the platform. */
export const localScriptRuntime: () => LocalScriptRuntime = startedOnFirstUse(
  () =>
    createLocalScriptRuntime({
      stageDir: join(config.dataDir, 'scripts'),
      functionPrefix: process.env.SCRIPT_FUNCTION_PREFIX ?? 'platform-script-',
      idleMs: Number(process.env.SCRIPT_IDLE_SECONDS ?? 300) * 1000,
      maxWorkers: Number(process.env.SCRIPT_MAX_WORKERS ?? 32),
    }),
  (pool) => pool.stop(),
);

export const scriptRuntime = (): ScriptRuntime => (config.mode === 'local' ? localScriptRuntime() : lambdaScriptRuntime());
