import { join } from 'node:path';
import { config } from '#platform/config.js';
import type { ScriptRuntime } from '#functions/scripts/runtime-port.js';
import { lambdaScriptRuntime } from './aws/script-functions.js';
import { onLocalShutdown } from './local/lifecycle.js';
import { type LocalScriptRuntime, createLocalScriptRuntime } from './local/script-pool.js';

let local: LocalScriptRuntime | undefined;

/** The local pool starts on first use and stops with the platform. */
export function localScriptRuntime(): LocalScriptRuntime {
  if (!local) {
    const pool = createLocalScriptRuntime({
      stageDir: join(config.dataDir, 'scripts'),
      functionPrefix: process.env.SCRIPT_FUNCTION_PREFIX ?? 'platform-script-',
      idleMs: Number(process.env.SCRIPT_IDLE_SECONDS ?? 300) * 1000,
      maxWorkers: Number(process.env.SCRIPT_MAX_WORKERS ?? 32),
    });
    local = pool;
    onLocalShutdown(async () => {
      if (local === pool) local = undefined;
      await pool.stop();
    });
  }
  return local;
}

export const scriptRuntime = (): ScriptRuntime => (config.mode === 'local' ? localScriptRuntime() : lambdaScriptRuntime());
