// Attacks on local mode through the names it answers: DNS rebinding (another site's name resolved to 127.0.0.1, so
// the browser sends that name in Host), cross-site reads of the dev account's key, and framing the console.
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { type RunningPlatform, startPlatform } from '../../bin/local.js';
import { uniqueName } from '../support/platform.js';
import { printAttackSummary } from '../support/attack-summary.js';

printAttackSummary('local host names (DNS rebinding, the dev key, framing)');

let platform: RunningPlatform;
let port: string;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with exactly these headers, Host too (none when absent); fetch would choose Host itself. */
function raw(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, setHost: false, headers: { ...(body && { 'content-type': 'application/json' }), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const own = () => `127.0.0.1:${port}`;
const asConsole = () => ({ host: own(), 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });

beforeAll(async () => {
  platform = await startPlatform({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'platform-hosts-')),
    dynamoEndpoint: inject('dynamoEndpoint'),
    adminKey: `adm_hosts_${process.pid}`,
  });
  port = new URL(platform.baseUrl).port;
});
afterAll(() => platform?.stop());

describe('local mode answers only its own Host names', () => {
  it('answers a rebound name with 421 in the envelope, on the API, the console and the dev key alike', async () => {
    // Act
    const answers = await Promise.all(
      ['/api/sdk/v1/me', '/', '/console/dev-account.json', '/pages/some-site/'].map((path) =>
        raw(path, { host: `evil.example:${port}`, 'x-api-key': platform.dev!.apiKey, 'sec-fetch-site': 'same-origin' }),
      ),
    );
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(421);
      expect(JSON.parse(answer.text)).toEqual({
        success: false,
        error: { code: 'MISDIRECTED_REQUEST', message: expect.stringContaining('Host'), details: { host: `evil.example:${port}` } },
      });
      expect(answer.text).not.toContain(platform.dev!.apiKey);
    }
  });

  it('changes nothing for a rebound name: a user the request would have created does not exist', async () => {
    // Prepare
    const username = uniqueName('rebound');
    const body = JSON.stringify({ username });
    // Act
    const refused = await raw('/api/admin/v1/users', { host: `evil.example:${port}`, 'x-admin-key': platform.adminKey }, 'POST', body);
    // Assess: the name is still free
    expect(refused.status).toBe(421);
    const created = await raw('/api/admin/v1/users', { host: own(), 'x-admin-key': platform.adminKey }, 'POST', body);
    expect(created.status).toBe(201);
  });

  it('refuses its own address on another port, no Host at all and a name that only ends like its own', async () => {
    // Act
    const answers = await Promise.all(
      [
        `127.0.0.1:${Number(port) + 1}`,
        undefined,
        `evil.example.localhost.attacker.test:${port}`,
        `localhost.evil.example:${port}`,
        `a_b.localhost:${port}`,
      ].map((host) => raw('/api/sdk/v1/me', host === undefined ? {} : { host })),
    );
    // Assess: Node's server itself refuses an HTTP/1.1 request without Host (400)
    expect(answers.map((answer) => answer.status)).toEqual([421, 400, 421, 421, 421]);
  });

  it('answers its loopback names and template sites at <sub>.localhost', async () => {
    // Act
    const [ipv4, name, ipv6, site] = await Promise.all([
      raw('/api/sdk/v1/me', { host: own() }),
      raw('/api/sdk/v1/me', { host: `localhost:${port}` }),
      raw('/api/sdk/v1/me', { host: `[::1]:${port}` }),
      raw('/', { host: `no-such-site.localhost:${port}` }),
    ]);
    // Assess: the API's own 401 for a missing key, the pages server's 404 for a site that does not exist
    expect([ipv4.status, name.status, ipv6.status]).toEqual([401, 401, 401]);
    expect(JSON.parse(ipv4.text).error.code).toBe('UNAUTHORIZED');
    expect(site.status).toBe(404);
    expect(site.text).toBe('Not Found');
  });
});

describe('the dev account key goes only to the console page itself', () => {
  it('hands the key to a same-origin request from the console', async () => {
    // Act
    const answer = await raw('/console/dev-account.json', asConsole());
    // Assess
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ apiKey: platform.dev!.apiKey });
  });

  it('gives nothing to a cross-site page, a sandboxed page, a mismatched Origin or a client that does not say', async () => {
    // Act
    const answers = await Promise.all([
      raw('/console/dev-account.json', { host: own(), 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' }),
      raw('/console/dev-account.json', { host: own(), 'sec-fetch-site': 'same-site', origin: `http://site.localhost:${port}` }),
      raw('/console/dev-account.json', { host: own(), 'sec-fetch-site': 'cross-site', origin: 'null' }),
      raw('/console/dev-account.json', { host: own(), 'sec-fetch-site': 'same-origin', origin: 'http://evil.example' }),
      raw('/console/dev-account.json', { host: own() }),
    ]);
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.text).not.toContain(platform.dev!.apiKey);
    }
  });

  it('serves a template site, not the key, at <sub>.localhost', async () => {
    // Act
    const answer = await raw('/console/dev-account.json', { host: `site.localhost:${port}`, 'sec-fetch-site': 'same-origin' });
    // Assess
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain(platform.dev!.apiKey);
  });
});

describe('the console cannot be framed', () => {
  it("sends frame-ancestors 'none' and X-Frame-Options DENY on its page, its files and the dev key", async () => {
    // Act
    const answers = await Promise.all(['/', '/app.js', '/console/dev-account.json'].map((path) => raw(path, asConsole())));
    // Assess
    for (const answer of answers) {
      expect(answer.headers['content-security-policy']).toBe("frame-ancestors 'none'");
      expect(answer.headers['x-frame-options']).toBe('DENY');
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });
});
