// `npm start` as a user runs it: a real process, its dev.json, a clean stop and data that survives.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, startPlatform } from '../../bin/local.js';
import { startLocal, waitFor } from '../support/local-start.js';

describe('local runtime (npm start)', () => {
  it('serves GET /me with the dev key, stops on SIGTERM and keeps its data across a restart', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-start-'));
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port), POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const first = startLocal(env);
    await waitFor(() => first.output().includes('Platform running'), 'the first start');
    const dev = JSON.parse(readFileSync(join(dataDir, 'dev.json'), 'utf8'));
    // Act
    const me = await fetch(`${dev.baseUrl}/api/sdk/v1/me`, { headers: { 'x-api-key': dev.apiKey } });
    const wrong = await fetch(`${dev.baseUrl}/api/sdk/v1/me`, { headers: { 'x-api-key': 'amp_wrong' } });
    const [webConsole, consoleKey] = await Promise.all([
      fetch(`${dev.baseUrl}/`),
      fetch(`${dev.baseUrl}/console/dev-account.json`, { headers: { 'sec-fetch-site': 'same-origin' } }),
    ]); // as the console's page asks
    first.child.kill('SIGTERM');
    const firstExit = await first.exited;
    const second = startLocal(env);
    await waitFor(() => second.output().includes('Platform running'), 'the restart');
    const again = await fetch(`${dev.baseUrl}/api/sdk/v1/me`, { headers: { 'x-api-key': dev.apiKey } });
    const devAfter = JSON.parse(readFileSync(join(dataDir, 'dev.json'), 'utf8'));
    second.child.kill('SIGINT');
    const secondExit = await second.exited;
    // Assess
    expect(first.output()).toContain(`http://127.0.0.1:${port}/api/sdk/v1`);
    expect(first.output()).toMatch(
      /starting DynamoDB Local[\s\S]*creating tables[\s\S]*loading the embedding model[\s\S]*building the web console[\s\S]*ready/,
    );
    expect(webConsole.status).toBe(200);
    expect(await consoleKey.json()).toEqual({ apiKey: dev.apiKey });
    expect(dev).toEqual({
      baseUrl: `http://127.0.0.1:${port}`,
      adminKey: expect.any(String),
      userId: expect.stringMatching(/^usr_/),
      apiKey: expect.stringMatching(/^amp_/),
    });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { userId: string } }).data.userId).toBe(dev.userId);
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    expect(firstExit).toBe(0);
    expect(again.status).toBe(200);
    expect(devAfter).toEqual(dev);
    expect(secondExit).toBe(0);
  }, 300_000);

  it('starts again in the same process on a new DynamoDB Local, as the benchmarks run one platform after another', async () => {
    // Prepare
    const options = { port: 0, inMemory: true, devAccount: true, adminKey: 'adm_restart' };
    const first = await startPlatform({ ...options, dataDir: mkdtempSync(join(tmpdir(), 'platform-first-')) });
    await first.stop();
    const second = await startPlatform({ ...options, dataDir: mkdtempSync(join(tmpdir(), 'platform-second-')) });
    // Act
    const me = await fetch(`${second.baseUrl}/api/sdk/v1/me`, { headers: { 'x-api-key': second.dev!.apiKey } }).finally(() => second.stop());
    // Assess
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { userId: string } }).data.userId).toBe(second.dev!.userId);
  }, 120_000);

  it('says plainly what to install when Java is missing', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-nojava-'));
    const emptyPath = mkdtempSync(join(tmpdir(), 'platform-path-'));
    // Act: node is started by its full path; nothing else is on PATH (no sandbox either: SCRIPT_SANDBOX=none keeps this about Java)
    const run = startLocal({ DATA_DIR: dataDir, PORT: String(await freePort()), PATH: emptyPath, SCRIPT_SANDBOX: 'none' });
    const code = await run.exited;
    // Assess
    expect(code).toBe(1);
    expect(run.output()).toMatch(/Java 17 or newer: install it/);
  }, 60_000);

  it('refuses a port in use with one line and starts nothing (no DynamoDB Local left behind)', async () => {
    // Prepare: another process holds the port
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', () => listening()));
    const { port } = holder.address() as { port: number };
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-busy-'));
    // Act
    const run = startLocal({ DATA_DIR: dataDir, PORT: String(port) });
    const code = await run.exited.finally(() => holder.close());
    // Assess
    expect(code).toBe(1);
    expect(run.output().trim().split('\n')).toEqual([
      `port ${port} on 127.0.0.1 is already in use (another npm start?): stop that process or set PORT=<another port>`,
    ]);
    expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
  }, 60_000);
});
