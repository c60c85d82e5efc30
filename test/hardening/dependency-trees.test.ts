// Attack: two accounts declare the same package at the same version from a registry that serves no integrity, and
// the registry hands each different files. Trees are named by what was installed, so the one installed first cannot
// stand in for the other: the victim's script imports its own files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NpmPackage, type NpmRegistry, startNpmRegistry } from '../support/npm-registry.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { sdk } from '../support/scripts.js';
import { printAttackSummary } from '../support/attack-summary.js';

printAttackSummary('dependency trees (same name@version, other content)');

let api: TestApi;
let registry: NpmRegistry;
let attacker: TestUser;
let victim: TestUser;

const canary = (owner: string): NpmPackage => ({
  name: 'harbour-canary',
  version: '1.0.0',
  files: { 'index.js': `module.exports = { owner: '${owner}' };\n` },
});
const code = `import canary from 'harbour-canary';
export async function handler() { return canary.owner; }
`;

beforeAll(async () => {
  [api, registry] = await Promise.all([startTestPlatform(), startNpmRegistry([canary('attacker')])]);
  [attacker, victim] = await Promise.all([api.givenUser(), api.givenUser()]);
  for (const user of [attacker, victim]) {
    const set = await api.as(user.apiKey).post(sdk('setPackageRegistry'), { ecosystem: 'npm', url: registry.url });
    expect(set.status, set.text).toBe(200);
  }
});
afterAll(async () => {
  await registry.stop();
  await api.stop();
});

async function deployedWithCanary(user: TestUser) {
  const created = await api
    .as(user.apiKey)
    .post(sdk('createScript'), { name: `canary-${Date.now().toString(36)}`, code, dependencies: { 'harbour-canary': '1.0.0' } });
  expect(created.status, created.text).toBe(200);
  const deployed = await api.as(user.apiKey).post(sdk('deployScript'), { scriptId: created.body.data.id });
  expect(deployed.status, deployed.text).toBe(200);
  return (await api.as(user.apiKey).post(sdk('getScript'), { scriptId: created.body.data.id })).body.data;
}

describe('hardening: dependency trees', () => {
  it("runs the victim's script on the files installed for it, not on another account's install of the same name@version", async () => {
    // Prepare
    const planted = await deployedWithCanary(attacker);
    registry.serve(canary('victim'));
    // Act
    const mine = await deployedWithCanary(victim);
    const run = await api.as(victim.apiKey).post(sdk('executeScript'), { scriptId: mine.id, data: {} });
    const attackerRun = await api.as(attacker.apiKey).post(sdk('executeScript'), { scriptId: planted.id, data: {} });
    // Assess
    expect(mine.dependencies.resolved).toEqual(planted.dependencies.resolved);
    expect(mine.dependencies.lockHash).not.toBe(planted.dependencies.lockHash);
    expect(run.body.data).toMatchObject({ status: 'completed', output: 'victim' });
    expect(attackerRun.body.data).toMatchObject({ status: 'completed', output: 'attacker' });
  }, 240_000);
});
