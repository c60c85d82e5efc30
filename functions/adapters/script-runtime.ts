import { join } from 'node:path';
import { settings } from '#platform/settings.js';
import type { ScriptRuntime } from '#functions/scripts/runtime-port.js';
import { lambdaScriptRuntime } from './aws/script-functions.js';
import { startedOnFirstUse } from './local/lifecycle.js';
import { type LocalScriptRuntime, createLocalScriptRuntime } from './local/script-pool.js';
import { envNames } from '#platform/env-names.js';
import { readEnv } from '#platform/settings.js';

/** The local pool starts on first use and stops with the platform. */
export const localScriptRuntime: () => LocalScriptRuntime = startedOnFirstUse(
  () =>
    createLocalScriptRuntime({
      stageDir: join(settings.dataDir, 'scripts'),
      functionPrefix: readEnv(envNames.scriptFunctionPrefix) ?? 'platform-script-',
      idleMs: Number(readEnv(envNames.scriptIdleSeconds) ?? 300) * 1000,
      maxWorkers: Number(readEnv(envNames.scriptMaxWorkers) ?? 32),
    }),
  (pool) => pool.stop(),
);

export const scriptRuntime = (): ScriptRuntime => (settings.mode === 'local' ? localScriptRuntime() : lambdaScriptRuntime());
