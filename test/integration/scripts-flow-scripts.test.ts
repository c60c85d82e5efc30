// getFlowScript and modifyFlowScript through the flows port (a small in-memory flows area here), against
// DynamoDB Local and the local script runtime: the owner's script gets a new deployed version, someone else's is copied.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sha256Hex } from '../../functions/platform/ids.js';
import type { Authoring } from '../../functions/scripts/authoring/authoring.js';
import type { FlowScripts } from '../../functions/scripts/ports.js';
import type { ScriptService } from '../../functions/scripts/service.js';
import type { ScriptStore } from '../../functions/scripts/store.js';

let authoring: Authoring;
let scripts: ScriptService;
let store: ScriptStore;
const flows = new Map<string, { userId: string; scriptId: string }>();
let stopLocal: () => Promise<void>;

const flowPort: FlowScripts = {
  scriptOf: async (userId, flowId) => (flows.get(flowId)?.userId === userId ? { scriptId: flows.get(flowId)!.scriptId } : undefined),
  repoint: async (_userId, flowId, scriptId) => void flows.set(flowId, { ...flows.get(flowId)!, scriptId }),
};

beforeAll(async () => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'platform-flows-'));
  const [{ createAuthoring }, { scriptCode, scriptService }, { createScriptStore }, { stopLocalServices }] = await Promise.all([
    import('../../functions/scripts/authoring/authoring.js'),
    import('../../functions/app/scripts/wiring.js'),
    import('../../functions/scripts/store.js'),
    import('../../functions/adapters/local/lifecycle.js'),
  ]);
  scripts = scriptService();
  store = createScriptStore();
  authoring = createAuthoring({
    flows: flowPort,
    scripts,
    store,
    code: scriptCode(),
    catalog: { methodsOf: async () => undefined },
    pythonFacts: async () => undefined,
    python: 'python3',
  });
  stopLocal = stopLocalServices;
});
afterAll(() => stopLocal());

const code = (label: string) => `export async function handler() { return '${label}'; }`;

describe('scripts: the script behind a flow', () => {
  it("reads the flow's script and says whether the caller owns it", async () => {
    // Prepare
    const { script } = await scripts.create('usr_reader', { name: 'flow step', runtime: 'nodejs18', code: code('one'), description: 'step' });
    flows.set('flow_read', { userId: 'usr_reader', scriptId: script.scriptId });
    // Act
    const read = await authoring.getFlowScript('usr_reader', 'flow_read');
    const stranger = authoring.getFlowScript('usr_stranger', 'flow_read');
    // Assess
    expect(read).toEqual({ code: code('one'), version: 1, scriptId: script.scriptId, scriptName: 'flow step', description: 'step', isOwned: true });
    await expect(stranger).rejects.toMatchObject({ code: 'NOT_FOUND', details: { flowId: 'flow_read' } });
  });

  it("gives the owner's script a new deployed version", async () => {
    // Prepare
    const { script } = await scripts.create('usr_owner', { name: 'mine', runtime: 'nodejs18', code: code('one') });
    flows.set('flow_own', { userId: 'usr_owner', scriptId: script.scriptId });
    // Act
    const modified = await authoring.modifyFlowScript('usr_owner', { flowId: 'flow_own', newCode: code('two'), commitMessage: 'better' });
    // Assess
    expect(modified).toEqual({ copied: false, scriptId: script.scriptId, versionId: expect.stringMatching(/^ver_/), version: 2 });
    expect(await scripts.readable('usr_owner', script.scriptId)).toMatchObject({ activeVersion: 2, deploymentStatus: 'deployed' });
  });

  it("copies someone else's published script to the caller, deploys the copy and points the flow at it", async () => {
    // Prepare
    const { script } = await scripts.create('usr_author', { name: 'shared', runtime: 'nodejs18', code: code('original'), description: 'shared step' });
    // Published into the marketplace, as publishScript leaves it.
    await store.update(script.scriptId, { status: 'published', listed: 'public' }, {});
    await scripts.install('usr_user', script.scriptId);
    flows.set('flow_copy', { userId: 'usr_user', scriptId: script.scriptId });
    // Act
    const modified = await authoring.modifyFlowScript('usr_user', { flowId: 'flow_copy', newCode: code('changed') });
    // Assess
    expect(modified).toMatchObject({ copied: true, version: 1 });
    expect(modified.scriptId).not.toBe(script.scriptId);
    expect(flows.get('flow_copy')!.scriptId).toBe(modified.scriptId);
    expect(await scripts.readable('usr_user', modified.scriptId)).toMatchObject({
      ownerId: 'usr_user',
      isPrivate: true,
      activeVersion: 1,
      name: 'shared (copy)',
    });
    expect((await authoring.getFlowScript('usr_user', 'flow_copy')).code).toBe(code('changed'));
    expect(await scripts.readable('usr_author', script.scriptId)).toMatchObject({ latestVersion: 1, activeVersion: null });
  });

  it('reads and deploys a version whose item holds its code, as items did before code moved to the blob store', async () => {
    // Prepare
    const { script, version } = await scripts.create('usr_legacy', { name: 'legacy', runtime: 'nodejs18', code: code('blob') });
    const { codeBytes: _inBlob, ...first } = version;
    await store.addVersion(script, {
      ...first,
      version: 2,
      versionId: 'ver_legacy',
      semver: '1.0.1',
      codeHash: sha256Hex(code('inline')),
      code: code('inline'),
    });
    flows.set('flow_legacy', { userId: 'usr_legacy', scriptId: script.scriptId });
    // Act
    const deployed = await scripts.deploy('usr_legacy', script.scriptId, { version: 2 });
    const read = await authoring.getFlowScript('usr_legacy', 'flow_legacy');
    // Assess
    expect(deployed.script).toMatchObject({ activeVersion: 2, deploymentStatus: 'deployed' });
    expect(read).toMatchObject({ code: code('inline'), version: 2 });
    expect(await store.getVersion(script.scriptId, 1)).toEqual(version);
    expect(version).toMatchObject({ codeHash: sha256Hex(code('blob')), codeBytes: code('blob').length });
    expect(version).not.toHaveProperty('code');
  });

  it('refuses new code with a syntax error before changing or copying anything', async () => {
    // Prepare
    const { script } = await scripts.create('usr_typo', { name: 'typo', runtime: 'nodejs18', code: code('one') });
    flows.set('flow_typo', { userId: 'usr_typo', scriptId: script.scriptId });
    // Act
    const refused = authoring.modifyFlowScript('usr_typo', { flowId: 'flow_typo', newCode: 'export async function handler( {' });
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'code', line: 1 } });
    expect(await scripts.readable('usr_typo', script.scriptId)).toMatchObject({ latestVersion: 1 });
  });
});
