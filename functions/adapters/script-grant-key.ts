// The key run grants are signed and verified with (functions/scripts/runs/run-grant.ts). On AWS: the secret the stack
// generates (SCRIPT_GRANT_SECRET_ARN, given by the composition), read once per container. Locally runs call resources in process and no grant
// leaves the process, so a random key per process serves the resource-call handler when it is run here.
import { randomBytes } from 'node:crypto';
import { settings } from '#platform/settings.js';
import { secretString } from './aws/secret-string.js';

let key: Promise<Buffer> | undefined;

async function load(secretArn: string | undefined): Promise<Buffer> {
  if (settings.mode === 'local') return randomBytes(32);
  if (!secretArn) throw new Error('SCRIPT_GRANT_SECRET_ARN is not set: the stack gives it with the scriptFunctions and scriptGrantKey capabilities');
  return Buffer.from(await secretString(secretArn), 'utf8');
}

export function scriptGrantKey(secretArn?: string): Promise<Buffer> {
  key ??= load(secretArn).catch((error: unknown) => {
    key = undefined;
    throw error;
  });
  return key;
}
