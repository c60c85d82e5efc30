// Starts the local platform for one test file and speaks HTTP to it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { type RunningPlatform, startPlatform } from '../../bin/local.js';
import { localAdapters } from '../../functions/adapters/local/adapters.js';
import { installLocalAdapters } from '../../functions/app/platform.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestUser {
  userId: string;
  username: string;
  apiKey: string;
}

export interface TestApi {
  baseUrl: string;
  platform: RunningPlatform;
  request(method: string, path: string, options?: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> }): Promise<ApiResponse>;
  as(apiKey: string): {
    get(path: string): Promise<ApiResponse>;
    post(path: string, body?: unknown): Promise<ApiResponse>;
    patch(path: string, body?: unknown): Promise<ApiResponse>;
    delete(path: string): Promise<ApiResponse>;
  };
  givenUser(overrides?: { username?: string; walletAddress?: string }): Promise<TestUser>;
  stop(): Promise<void>;
}

let counter = 0;
/**
 * Sets the variables (undefined removes one) and gives the running platform a new platform object over the same local
 * services, as a restart would: a platform parses its settings once, when it is built.
 */
export function reconfigurePlatform(variables: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  installLocalAdapters(localAdapters);
}

export const uniqueName = (prefix = 'user') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/**
 * `ownTables` gives the file tables of its own: platform-wide sweeps (the payout run pays every owner's owed
 * entries) would otherwise take up other files' entries, which belong to another file's embedded bank.
 */
export async function startTestPlatform(options: { ownTables?: boolean } = {}): Promise<TestApi> {
  if (options.ownTables) process.env.TABLE_PREFIX = `${uniqueName('t')}-`;
  const platform = await startPlatform({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'platform-test-')),
    dynamoEndpoint: inject('dynamoEndpoint'),
    adminKey: `adm_test_${process.pid}`,
    devAccount: false,
  });
  const baseUrl = platform.baseUrl;

  async function request(
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse> {
    const hasBody = options.rawBody !== undefined || options.body !== undefined;
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(hasBody && { 'content-type': 'application/json' }), ...options.headers },
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body, text };
  }

  const as = (apiKey: string) => ({
    get: (path: string) => request('GET', path, { headers: { 'x-api-key': apiKey } }),
    post: (path: string, body?: unknown) => request('POST', path, { body: body ?? {}, headers: { 'x-api-key': apiKey } }),
    patch: (path: string, body?: unknown) => request('PATCH', path, { body: body ?? {}, headers: { 'x-api-key': apiKey } }),
    delete: (path: string) => request('DELETE', path, { headers: { 'x-api-key': apiKey } }),
  });

  async function givenUser(overrides: { username?: string; walletAddress?: string } = {}): Promise<TestUser> {
    const username = overrides.username ?? uniqueName();
    const response = await request('POST', '/api/admin/v1/users', { body: { username, ...overrides }, headers: { 'x-admin-key': platform.adminKey } });
    if (response.status !== 201) throw new Error(`could not create user: ${response.text}`);
    return response.body.data as TestUser;
  }

  return { baseUrl, platform, request, as, givenUser, stop: () => platform.stop() };
}
