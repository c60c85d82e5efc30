// Resource calls of scripts at the service level, without the HTTP platform: an installed and authenticated resource
// behind a real local upstream, and the grant of a run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { CreateResourceInput } from '../../functions/resources/schemas.js';
import { installationService, resourceService } from '../../functions/app/resources/wiring.js';
import type { RunGrant } from '../../functions/scripts/runs/run-grant.js';
import type { Caller } from '../../functions/platform/http.js';
import { parseInput } from '../../functions/platform/http.js';
import { newId } from '../../functions/platform/ids.js';
import { resourceInput } from './resources.js';

/** Services as in local mode: DynamoDB Local, and credentials sealed with a key under a fresh data directory. */
export function useLocalServices(): void {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'platform-script-calls-'));
}

const callerOf = (userId: string): Caller => ({ userId, keyId: 'key_test', scopes: ['*'] });

export interface CallableResource {
  resourceId: string;
  name: string;
  /** Installed and authenticated with `apiKey`: the credentials a call must carry. */
  userId: string;
  apiKey: string;
}

/** Published by another user at 0.01 USD a call, installed and authenticated by a fresh user. */
export async function givenCallableResource(baseUrl: string): Promise<CallableResource> {
  const owner = callerOf(newId('usr'));
  const user = callerOf(newId('usr'));
  const name = `forecast-${newId('r').slice(2).toLowerCase()}`;
  const created = await resourceService().create(owner, parseInput(CreateResourceInput, resourceInput({ name }, { baseUrl, authentication: 'api_key' })));
  await resourceService().publish(owner, { resourceId: created.id });
  await installationService().install(user, created.id, 'http://127.0.0.1');
  const apiKey = `key-of-${user.userId}`;
  await installationService().authenticate(user, { resourceId: created.id, type: 'api_key', credentials: { apiKey } }, 'http://127.0.0.1');
  return { resourceId: created.id, name, userId: user.userId, apiKey };
}

export const runGrant = (userId: string, overrides: Partial<RunGrant> = {}): RunGrant => ({
  executionId: newId('exe'),
  userId,
  scriptId: newId('scr'),
  allowedResources: [],
  limitUsd: 1,
  limitedBy: 'cost',
  memoryMb: 128,
  startedAt: Date.now(),
  ...overrides,
});
