// Reading a version's code back: GET /api/sdk/v1/scripts/{scriptId}/versions/{version}/code answers it to the
// script's owner only; the marketplace, an installer and strangers never see it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../support/platform.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenListed, givenScript, nodeEcho, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

const codeOf = (who: TestUser, scriptId: string, version: string) =>
  api.as(who.apiKey).get(`${rest}/${encodeURIComponent(scriptId)}/versions/${encodeURIComponent(version)}/code`);
const versionsOf = async (scriptId: string) => (await api.as(owner.apiKey).post(sdk('listVersions'), { scriptId })).body.data;

describe('scripts: getScriptCode', () => {
  it('answers the owner the code of each version, by number or by semantic version', async () => {
    // Prepare
    const script = await givenScript(api, owner, { code: nodeEcho('first') });
    await api.as(owner.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: nodeEcho('second'), commitMessage: 'second' });
    // Act
    const [first, second, bySemver] = await Promise.all([codeOf(owner, script.id, '1'), codeOf(owner, script.id, '2'), codeOf(owner, script.id, '1.0.1')]);
    // Assess
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      scriptId: script.id,
      versionId: expect.stringMatching(/^ver_/),
      version: 1,
      semver: '1.0.0',
      runtime: 'nodejs18',
      code: nodeEcho('first'),
      codeHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      createdAt: expect.any(String),
    });
    expect(second.body.data).toMatchObject({ version: 2, semver: '1.0.1', code: nodeEcho('second') });
    expect(bySemver.body.data).toEqual(second.body.data);
  });

  it('refuses everyone but the owner without showing the code: NOT_FOUND for a private script, FORBIDDEN for a listed one, even to its installer', async () => {
    // Prepare
    const secret = 'export async function handler() { return "the private recipe"; }';
    const hidden = await givenScript(api, owner, { code: secret, private: true });
    const listed = await givenListed(api, owner, { code: secret.replace('private', 'listed') });
    await api.as(other.apiKey).post(`${rest}/${listed.id}/install`);
    const before = await Promise.all([versionsOf(hidden.id), versionsOf(listed.id)]);
    // Act
    const [ofHidden, ofListed] = await Promise.all([codeOf(other, hidden.id, '1'), codeOf(other, listed.id, '1')]);
    // Assess
    expect(ofHidden.status).toBe(404);
    expect(ofHidden.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: `script ${hidden.id} not found`, details: { scriptId: hidden.id } } });
    expect(ofListed.status).toBe(403);
    expect(ofListed.body.error.code).toBe('FORBIDDEN');
    for (const answer of [ofHidden, ofListed]) expect(answer.text).not.toContain('recipe');
    expect(await Promise.all([versionsOf(hidden.id), versionsOf(listed.id)])).toEqual(before);
  });

  it('names the version it cannot read: VALIDATION_ERROR for a malformed one, NOT_FOUND for one that does not exist', async () => {
    // Prepare
    const script = await givenScript(api, owner);
    // Act
    const answers = await Promise.all(['0', 'latest', '1.0', '01', '1'.repeat(300), '2', '9.9.9'].map((version) => codeOf(owner, script.id, version)));
    const unknownScript = await codeOf(owner, 'scr_doesnotexist', '1');
    // Assess
    const [zero, word, partial, padded, long, missing, missingSemver] = answers as [
      ApiResponse,
      ApiResponse,
      ApiResponse,
      ApiResponse,
      ApiResponse,
      ApiResponse,
      ApiResponse,
    ];
    for (const bad of [zero, word, partial, padded, long]) {
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'version' } });
    }
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'NOT_FOUND', details: { version: '2' } });
    expect(missingSemver.body.error).toMatchObject({ code: 'NOT_FOUND', details: { version: '9.9.9' } });
    expect(unknownScript.body.error.code).toBe('NOT_FOUND');
  });
});
