// Scripts in both runtimes, through the local pool as `npm start` runs it, dial an address in each network of the
// platform's private-address list (functions/platform/outbound.ts): the sandbox's own guard must refuse every one,
// not leave it to the network namespace (which Lambda does not have).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalScriptRuntime } from '../../functions/adapters/local/script-pool.js';
import type { RuntimeLabel } from '../../functions/scripts/model.js';
import { privateRanges } from '../../functions/platform/outbound.js';
import { attackPool, attackRequest, escapeTally, plantTargets } from '../support/sandbox-attacks.js';

let pool: LocalScriptRuntime;
const tally = escapeTally('private ranges (node and python, through the pool)');

beforeAll(() => {
  pool = attackPool(plantTargets());
});
afterAll(async () => {
  console.log(tally.summary());
  await pool.stop();
});

/** One address inside each network: the network's own when it is a single address, else its first host. */
const targets = [
  ...privateRanges.ipv4.map(([network]) => network.replace(/\.0$/, '.1')),
  ...privateRanges.ipv6.map(([network, prefix]) => (prefix === 128 ? network : `${network}1`)),
];
const publicAddress = '1.1.1.1';
const port = 8080;

const dialers: Record<RuntimeLabel, (hosts: string[]) => string> = {
  nodejs18: (hosts) => `export async function handler() { const net = require('net'); const found = {};
    for (const host of ${JSON.stringify(hosts)}) {
      found[host] = await new Promise((resolve) => net.connect(${port}, host).on('connect', () => resolve('connected')).on('error', (error) => resolve(error.code)));
    }
    return found; }`,
  'python3.11': (hosts) => `import socket
def handler(event, context):
    found = {}
    for host in ${JSON.stringify(hosts)}:
        try:
            socket.create_connection((host, ${port}), timeout=2)
            found[host] = 'connected'
        except Exception as error:
            found[host] = type(error).__name__
    return found
`,
};
const refusal: Record<RuntimeLabel, string> = { nodejs18: 'EACCES', 'python3.11': 'PermissionError' };

describe('sandbox: the private-address list', () => {
  for (const runtime of ['nodejs18', 'python3.11'] as const) {
    it(`${runtime}: a script dialing any private, multicast or reserved network is refused by the runtime's guard`, async () => {
      // Act
      const outcome = await pool.invoke(await attackRequest(runtime, dialers[runtime]([...targets, publicAddress])));
      // Assess
      const found = JSON.parse(outcome.outputJson) as Record<string, string>;
      const unguarded = targets.filter((host) => found[host] !== refusal[runtime]);
      expect(tally.record(`${runtime}: ${unguarded.join(', ')}`, unguarded.length > 0), outcome.outputJson).toBe(false);
      // A public address is not the guard's to refuse (the sandbox's namespace has no route to it, which is another error).
      expect(found[publicAddress]).not.toBe(refusal[runtime]);
    });
  }
});
