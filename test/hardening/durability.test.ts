// Durability: `kill -9` of `npm start` in the middle of a burst of writes, a restart on the same data directory, and
// every write the platform acknowledged (201) is found whole.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local.js';
import { resourceInput } from '../support/resources.js';
import { nodeEcho } from '../support/scripts.js';
import { startLocal, waitFor } from '../support/local-start.js';

const clients = 8;
/** Writes acknowledged before the kill. */
const burstBeforeKill = 60;

/** DynamoDB Local processes serving `dbPath` (java keeps running when its parent is killed unless the platform stops it). */
const dynamoProcessesOf = (dbPath: string) =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('DynamoDBLocal') && line.includes(dbPath)).length;

describe('hardening: durability', () => {
  it('finds every acknowledged write after kill -9 of npm start mid-burst and a restart on the same data', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-kill-'));
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const first = startLocal(env);
    await waitFor(() => first.output().includes('Platform running'), 'the first start');
    const dev = JSON.parse(readFileSync(join(dataDir, 'dev.json'), 'utf8')) as { baseUrl: string; apiKey: string };
    const post = (path: string, body: unknown) =>
      fetch(`${dev.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': dev.apiKey }, body: JSON.stringify(body) });
    const acknowledged: Array<{ path: string; name: string }> = [];
    let attempted = 0;
    let killed = false;
    // Act: each client writes until the platform dies; the kill lands while writes are in flight
    const writer = async (client: number) => {
      for (let n = 0; !killed; n++) {
        const name = `kill-${client}-${n}`;
        const [path, body] =
          n % 4 === 0
            ? ['/api/sdk/v1/scripts', { name, description: 'written during the burst', runtime: 'nodejs18', code: nodeEcho(name) }]
            : ['/api/sdk/v1/resources', resourceInput({ name })];
        attempted += 1;
        const answer = await post(path, body).catch(() => undefined);
        if (answer?.status !== 201) continue;
        const { data } = (await answer.json()) as { data: { id: string } };
        acknowledged.push({ path: `${path}/${data.id}`, name });
        if (acknowledged.length === burstBeforeKill && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, (_, client) => writer(client)));
    await first.exited;
    const second = startLocal(env);
    await waitFor(() => second.output().includes('Platform running') || second.child.exitCode !== null, 'the restart');
    const reads = await Promise.all(
      acknowledged.map(async ({ path, name }) => {
        const read = await fetch(`${dev.baseUrl}${path}`, { headers: { 'x-api-key': dev.apiKey } });
        const text = await read.text();
        return {
          path,
          found: read.status === 200 && (JSON.parse(text) as { data: { name: string } }).data.name === name,
          answer: `${read.status} ${text.slice(0, 300)}`,
        };
      }),
    );
    const lost = reads.filter((read) => !read.found).map((read) => `${read.path}: ${read.answer}`);
    const strays = dynamoProcessesOf(join(dataDir, 'dynamodb'));
    second.child.kill('SIGTERM');
    const secondExit = await second.exited;
    console.log(
      `durability: kill -9 after ${acknowledged.length} acknowledged of ${attempted} attempted writes (${clients} clients); acknowledged writes lost ${lost.length}`,
    );
    // Assess
    expect(second.output()).toContain('Platform running');
    expect(acknowledged.length).toBeGreaterThanOrEqual(burstBeforeKill);
    expect(lost).toEqual([]);
    expect(strays).toBe(1);
    expect(secondExit).toBe(0);
    expect(dynamoProcessesOf(join(dataDir, 'dynamodb'))).toBe(0);
  }, 400_000);
});
