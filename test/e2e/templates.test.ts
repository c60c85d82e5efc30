import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenPublishedResource, resourceInput } from '../support/resources.js';
import { execute, givenListed } from '../support/scripts.js';
import {
  buildScript,
  buildToEnd,
  fetchPage,
  givenBuiltTemplate,
  givenSiteRepo,
  givenTemplate,
  manifest,
  pricing,
  templatesPath,
} from '../support/templates.js';

let api: TestApi;
let owner: TestUser;
let buyer: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, buyer] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

const byId = (templateId: string, suffix = '') => `${templatesPath}/${templateId}${suffix}`;
const install = (who: TestUser, templateId: string, customization: Record<string, unknown> = {}) =>
  api.as(who.apiKey).post(byId(templateId, '/install'), { customization });
/** Built and in the marketplace, so that any user may install it. */
async function givenPublished() {
  const given = await givenBuiltTemplate(api, owner);
  await api.as(owner.apiKey).post(byId(given.templateId, '/publish'), { pricing });
  return given;
}
const getTemplate = async (who: TestUser, templateId: string) => (await api.as(who.apiKey).get(byId(templateId))).body.data;

describe('templates: create and build', () => {
  it('creates a draft pinned to a commit, builds it, and serves the preview at its CDN address with the build logs recorded', async () => {
    // Prepare
    const { repo, gitHash } = givenSiteRepo();
    // Act
    const created = await api.as(owner.apiKey).post(templatesPath, {
      repository: repo.url,
      gitHash,
      name: 'Landing page',
      description: 'A landing page',
      version: '1.0.0-beta.1',
      category: 'landing',
      tags: ['site'],
    });
    const built = await api.as(owner.apiKey).post(byId(created.body.data.id, '/build'), {});
    const read = await api.as(owner.apiKey).get(byId(created.body.data.id, `/builds/${built.body.data.buildId}`));
    const template = await getTemplate(owner, created.body.data.id);
    const sub = new URL(built.body.data.cdnUrl).hostname.split('.')[0]!;
    const page = await fetchPage(api.baseUrl, sub, 'host');
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^tpl_/),
      name: 'Landing page',
      status: 'draft',
      version: '1.0.0-beta.1',
      createdAt: expect.any(String),
    });
    expect(built.status).toBe(200);
    expect(built.body.data).toMatchObject({
      buildStatus: 'success',
      version: '1.0.0-beta.1',
      gitHash,
      reason: null,
      cdnUrl: expect.stringMatching(/^http:\/\/[a-z0-9-]+\.localhost:\d+\/$/),
    });
    expect(built.body.data.buildOutput).toMatch(/^2 files, \d+ bytes published/);
    expect(built.body.data.logs).toEqual(expect.arrayContaining(['built v1']));
    expect(read.body.data).toEqual(built.body.data);
    expect(template).toMatchObject({
      buildStatus: 'success',
      builtVersion: '1.0.0-beta.1',
      cdnUrl: built.body.data.cdnUrl,
      customization: manifest().customization,
    });
    expect(page.status).toBe(200);
    expect(page.facts).toMatchObject({ label: 'v1', publicValues: {} });
  });

  it('lists the caller’s templates with paging and answers another user’s draft with 404', async () => {
    // Prepare
    const { repo, gitHash } = givenSiteRepo();
    const ids = [await givenTemplate(api, owner, { repository: repo.url, gitHash }), await givenTemplate(api, owner, { repository: repo.url, gitHash })];
    // Act
    const listed = await api.as(owner.apiKey).get(`${templatesPath}?limit=1&offset=0`);
    const drafts = await api.as(owner.apiKey).get(`${templatesPath}?status=draft&limit=100`);
    const strangers = await api.as(buyer.apiKey).get(byId(ids[0]!));
    // Assess
    expect(listed.body.data).toMatchObject({ limit: 1, offset: 0, templates: [expect.objectContaining({ id: ids[1], status: 'draft', installCount: 0 })] });
    expect(drafts.body.data.templates.map((template: { id: string }) => template.id)).toEqual(expect.arrayContaining(ids));
    expect(strangers.status).toBe(404);
  });
});

describe('templates: install', () => {
  it('installs with customization: the page answers on both URL forms with the values, defaults and a clean build environment', async () => {
    // Prepare
    const { templateId } = await givenPublished();
    // Act
    const installed = await install(buyer, templateId, { 'theme.primaryColor': '#ff8800', 'layout.columns': 3, 'features.darkMode': true });
    const { subdomain } = installed.body.data;
    const [hostForm, pathForm, nested, redirect] = await Promise.all([
      fetchPage(api.baseUrl, subdomain, 'host'),
      fetchPage(api.baseUrl, subdomain, 'path'),
      fetchPage(api.baseUrl, subdomain, 'host', '/about'),
      fetchPage(api.baseUrl, subdomain, 'host', '/missing.css'),
    ]);
    const template = await getTemplate(owner, templateId);
    // Assess
    expect(installed.status).toBe(201);
    expect(installed.body.data).toMatchObject({
      installationId: expect.stringMatching(/^tin_/),
      templateId,
      buildStatus: 'success',
      installedScripts: [],
      installedResources: [],
      version: '1.0.0',
      customization: { 'theme.primaryColor': '#ff8800', 'layout.columns': 3, 'features.darkMode': true, 'hero.title': 'Hello', 'layout.style': 'grid' },
      pageUrl: `http://${subdomain}.localhost:${new URL(api.baseUrl).port}/`,
      pagePathUrl: `${api.baseUrl}/pages/${subdomain}/`,
    });
    expect(subdomain).toMatch(/^fixture-site-[a-z0-9]{10}$/);
    for (const page of [hostForm, pathForm]) {
      expect(page.status).toBe(200);
      expect(page.facts?.publicValues).toEqual({
        NEXT_PUBLIC_THEME_PRIMARYCOLOR: '#ff8800',
        NEXT_PUBLIC_LAYOUT_COLUMNS: '3',
        NEXT_PUBLIC_FEATURES_DARKMODE: 'true',
        NEXT_PUBLIC_HERO_TITLE: 'Hello',
        NEXT_PUBLIC_LAYOUT_STYLE: 'grid',
      });
      expect(page.facts?.envNames).not.toEqual(expect.arrayContaining(['DYNAMODB_ENDPOINT']));
      expect(page.facts?.envNames.filter((name) => /ADMIN|DATA_DIR|DYNAMO|TABLE_|AWS_/.test(name))).toEqual([]);
    }
    expect(pathForm.headers['content-security-policy']).toMatch(/^sandbox/);
    expect(nested.text).toBe('<p>about v1</p>');
    expect(redirect.status).toBe(404);
    expect(template.installCount).toBe(1);
  });

  it('reports requirements and the estimated cost, and lists the caller’s installations', async () => {
    // Prepare
    const { templateId } = await givenPublished();
    const someone = await api.givenUser();
    const installed = await install(someone, templateId);
    // Act
    const requirements = await api.as(someone.apiKey).post(byId(templateId, '/check-requirements'));
    const listed = await api.as(someone.apiKey).get(`${templatesPath}/installations`);
    const one = await api.as(someone.apiKey).get(`${templatesPath}/installations/${installed.body.data.installationId}`);
    const others = await api.as(buyer.apiKey).get(`${templatesPath}/installations/${installed.body.data.installationId}`);
    // Assess
    expect(requirements.body.data).toEqual({
      canInstall: true,
      missingResources: [],
      missingScripts: [],
      built: true,
      estimatedCost: { setup: 5, monthly: 2, perUse: 0.01 },
      requirements: { scripts: [], resources: [] },
    });
    expect(listed.body.data).toMatchObject({
      total: 1,
      installations: [expect.objectContaining({ installationId: installed.body.data.installationId, templateId })],
    });
    expect(one.body.data.subdomain).toBe(installed.body.data.subdomain);
    expect(others.status).toBe(404);
  });

  it.each([
    ['a color that is not hex', { 'theme.primaryColor': 'red' }, 'theme.primaryColor', 'red'],
    ['a number above max', { 'layout.columns': 5 }, 'layout.columns', 5],
    ['a number off its step', { 'layout.columns': 1.5 }, 'layout.columns', 1.5],
    ['a number given as text', { 'layout.columns': '2' }, 'layout.columns', '2'],
    ['a boolean given as text', { 'features.darkMode': 'yes' }, 'features.darkMode', 'yes'],
    ['a string over maxLength', { 'hero.title': 'x'.repeat(41) }, 'hero.title', 'x'.repeat(41)],
    ['a select value not in options', { 'layout.style': 'masonry' }, 'layout.style', 'masonry'],
    ['an unknown key', { 'theme.accent': '#000000' }, 'theme.accent', '#000000'],
  ])('refuses %s with VALIDATION_ERROR naming the key and value, installing nothing', async (_label, customization, key, value) => {
    // Prepare
    const { templateId } = await givenPublished();
    const someone = await api.givenUser();
    // Act
    const refused = await install(someone, templateId, customization);
    const listed = await api.as(someone.apiKey).get(`${templatesPath}/installations`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: `customization.${key}`, value, key } });
    expect(listed.body.data.total).toBe(0);
    expect((await getTemplate(owner, templateId)).installCount).toBe(0);
  });

  it('needs the templates:install scope (403 otherwise)', async () => {
    // Prepare
    const { templateId } = await givenPublished();
    const narrow = (await api.as(buyer.apiKey).post('/api/sdk/v1/keys', { name: 'exec only', scopes: ['scripts:execute'] })).body.data.apiKey;
    const installer = (await api.as(buyer.apiKey).post('/api/sdk/v1/keys', { name: 'installer', scopes: ['templates:install'] })).body.data.apiKey;
    // Act
    const refused = await api.as(narrow).post(byId(templateId, '/install'), {});
    const allowed = await api.as(installer).post(byId(templateId, '/install'), {});
    // Assess
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(allowed.status).toBe(201);
    expect((await getTemplate(owner, templateId)).installCount).toBe(1);
  });

  it('keeps installations pinned to their version until they upgrade, which rebuilds the page from the newer commit', async () => {
    // Prepare
    const { templateId, repo } = await givenPublished();
    const someone = await api.givenUser();
    const pinned = (await install(someone, templateId, { 'hero.title': 'Mine' })).body.data;
    const nextHash = repo.commit(
      { 'template.json': JSON.stringify(manifest({}, { environmentVariables: { SITE_LABEL: 'v2' } })), 'build.mjs': buildScript },
      'v2',
    );
    await api.as(owner.apiKey).post(byId(templateId, '/versions'), { version: '1.1.0', gitHash: nextHash, changelog: 'new label' });
    await buildToEnd(api, owner, templateId, '1.1.0');
    // Act
    const beforeUpgrade = await fetchPage(api.baseUrl, pinned.subdomain, 'host');
    const upgraded = await api.as(someone.apiKey).post(`${templatesPath}/installations/${pinned.installationId}/upgrade`, {});
    const afterUpgrade = await fetchPage(api.baseUrl, pinned.subdomain, 'path');
    const again = await api.as(someone.apiKey).post(`${templatesPath}/installations/${pinned.installationId}/upgrade`, {});
    // Assess
    expect(beforeUpgrade.facts?.label).toBe('v1');
    expect(upgraded.body.data).toMatchObject({
      version: '1.1.0',
      gitHash: nextHash,
      buildStatus: 'success',
      customization: expect.objectContaining({ 'hero.title': 'Mine' }),
    });
    expect(afterUpgrade.facts).toMatchObject({ label: 'v2', publicValues: expect.objectContaining({ NEXT_PUBLIC_HERO_TITLE: 'Mine' }) });
    expect(again.status).toBe(400);
    expect(again.body.error.details).toMatchObject({ field: 'version', value: '1.1.0' });
  });

  it('uninstalls: the page stops answering and installCount drops', async () => {
    // Prepare
    const { templateId } = await givenPublished();
    const someone = await api.givenUser();
    const installed = (await install(someone, templateId)).body.data;
    // Act
    const byStranger = await api.as(buyer.apiKey).delete(`${templatesPath}/installations/${installed.installationId}`);
    const removed = await api.as(someone.apiKey).delete(`${templatesPath}/installations/${installed.installationId}`);
    const page = await fetchPage(api.baseUrl, installed.subdomain, 'host');
    // Assess
    expect(byStranger.status).toBe(404);
    expect(removed.body).toEqual({ success: true, message: expect.stringContaining('uninstalled') });
    expect(page.status).toBe(404);
    expect((await getTemplate(owner, templateId)).installCount).toBe(0);
  });
});

describe('templates: scripts and resources', () => {
  const customizationEcho = 'export async function handler(event, context) { return { customization: context.customization }; }';

  it('reports an unpublished resource dependency as missing and refuses to publish until it is published', async () => {
    // Prepare
    const draftResource = (await api.as(owner.apiKey).post('/api/sdk/v1/resources', resourceInput())).body.data.id;
    const { templateId } = await givenBuiltTemplate(api, owner, { dependencies: { scripts: [], resources: [draftResource] } });
    // Act
    const requirements = await api.as(owner.apiKey).post(byId(templateId, '/check-requirements'));
    const refused = await api.as(owner.apiKey).post(byId(templateId, '/publish'), { pricing });
    // Assess
    expect(requirements.body.data).toMatchObject({
      canInstall: false,
      missingResources: [draftResource],
      requirements: { resources: [{ id: draftResource, available: false }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.missingResources).toEqual([draftResource]);
    expect((await getTemplate(owner, templateId)).status).toBe('draft');
  });

  it('installs the template’s scripts and resources for the buyer; its scripts see the customization; uninstall removes them', async () => {
    // Prepare
    const resourceId = await givenPublishedResource(api, owner);
    const script = await givenListed(api, owner, { code: customizationEcho });
    const { templateId } = await givenBuiltTemplate(api, owner, { dependencies: { scripts: [script.id], resources: [resourceId] } });
    await api.as(owner.apiKey).post(byId(templateId, '/publish'), { pricing });
    const someone = await api.givenUser();
    // Act
    const installed = (await install(someone, templateId, { 'hero.title': 'From the template' })).body.data;
    const run = await execute(api, someone, script.id);
    const resourcesAfterInstall = (await api.as(someone.apiKey).get('/api/sdk/v1/resources/installations')).body.data;
    await api.as(someone.apiKey).delete(`${templatesPath}/installations/${installed.installationId}`);
    const resourcesAfterUninstall = (await api.as(someone.apiKey).get('/api/sdk/v1/resources/installations')).body.data;
    const runAfterUninstall = await execute(api, someone, script.id);
    // Assess
    expect(installed).toMatchObject({ installedScripts: [script.id], installedResources: [resourceId], buildStatus: 'success' });
    expect(run.body.data.output.customization).toMatchObject({ 'hero.title': 'From the template', 'layout.columns': 2 });
    expect(JSON.stringify(resourcesAfterInstall)).toContain(resourceId);
    expect(JSON.stringify(resourcesAfterUninstall)).not.toContain(resourceId);
    expect(runAfterUninstall.status).not.toBe(200);
  });
});

describe('templates: publish, marketplace, versions, delete', () => {
  it('refuses to publish before a successful build or without complete metadata, changing nothing', async () => {
    // Prepare
    const { repo, gitHash } = givenSiteRepo();
    const unbuilt = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    const built = (await givenBuiltTemplate(api, owner)).templateId;
    await api.as(owner.apiKey).patch(byId(built), { description: '' });
    // Act
    const noBuild = await api.as(owner.apiKey).post(byId(unbuilt, '/publish'), { pricing });
    const noDescription = await api.as(owner.apiKey).post(byId(built, '/publish'), { pricing });
    const badPricing = await api.as(owner.apiKey).post(byId(built, '/publish'), { pricing: { setupFee: -1, monthlyFee: 0 } });
    // Assess
    expect(noBuild.status).toBe(400);
    expect(noBuild.body.error.details.problems).toEqual(expect.arrayContaining([expect.stringContaining('successful build')]));
    expect(noDescription.body.error.details.problems).toEqual(['it needs a description']);
    expect(badPricing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'pricing.setupFee' } });
    expect((await getTemplate(owner, built)).status).toBe('draft');
  });

  it('publishes into the marketplace with filters and paging; unpublish leaves installations serving', async () => {
    // Prepare
    const tag = `t${Date.now().toString(36)}`;
    const { templateId } = await givenBuiltTemplate(api, owner);
    await api.as(owner.apiKey).patch(byId(templateId), { tags: [tag, 'site'], category: 'portfolio', description: 'Find me by zebra' });
    // Act
    const published = await api.as(owner.apiKey).post(byId(templateId, '/publish'), { pricing });
    const byTag = await api.as(buyer.apiKey).get(`${templatesPath}/marketplace?tags=${tag}`);
    const bySearch = await api.as(buyer.apiKey).get(`${templatesPath}/marketplace?search=zebra&category=portfolio&limit=5`);
    const emptyPage = await api.as(buyer.apiKey).get(`${templatesPath}/marketplace?tags=${tag}&offset=1`);
    const installed = (await install(buyer, templateId)).body.data;
    const unpublished = await api.as(owner.apiKey).post(byId(templateId, '/unpublish'));
    const afterUnpublish = await api.as(buyer.apiKey).get(`${templatesPath}/marketplace?tags=${tag}`);
    const page = await fetchPage(api.baseUrl, installed.subdomain, 'host');
    const twice = await api.as(owner.apiKey).post(byId(templateId, '/unpublish'));
    // Assess
    expect(published.body.data).toMatchObject({ id: templateId, status: 'published', pricing: expect.objectContaining({ setupFee: 5 }) });
    expect(byTag.body.data).toEqual({
      templates: [
        {
          id: templateId,
          name: 'Fixture site',
          description: 'Find me by zebra',
          category: 'portfolio',
          tags: [tag, 'site'],
          version: '1.0.0',
          pricing: { setupFee: 5, monthlyFee: 2 },
          rating: 0,
          installCount: 0,
        },
      ],
      total: 1,
      limit: 10,
      offset: 0,
    });
    expect(bySearch.body.data.templates.map((template: { id: string }) => template.id)).toContain(templateId);
    expect(emptyPage.body.data).toMatchObject({ templates: [], total: 1, offset: 1 });
    expect(unpublished.body.data).toEqual({ id: templateId, status: 'draft' });
    expect(afterUnpublish.body.data.total).toBe(0);
    expect(page.status).toBe(200);
    expect(twice.status).toBe(409);
  });

  it('orders versions by semver precedence and refuses one that is not newer', async () => {
    // Prepare
    const { templateId, gitHash } = await givenBuiltTemplate(api, owner);
    // Act
    const beta = await api.as(owner.apiKey).post(byId(templateId, '/versions'), { version: '1.1.0-beta.2', gitHash });
    const rc = await api.as(owner.apiKey).post(byId(templateId, '/versions'), { version: '1.1.0-rc.1', gitHash, changelog: 'candidate' });
    const older = await api.as(owner.apiKey).post(byId(templateId, '/versions'), { version: '1.1.0-beta.10', gitHash });
    const malformed = await api.as(owner.apiKey).post(byId(templateId, '/versions'), { version: 'v2', gitHash });
    const listed = await api.as(owner.apiKey).get(byId(templateId, '/versions'));
    // Assess
    expect(beta.status).toBe(201);
    expect(rc.body.data).toEqual({
      versionId: expect.stringMatching(/^tvr_/),
      version: '1.1.0-rc.1',
      gitHash,
      changelog: 'candidate',
      createdAt: expect.any(String),
    });
    expect(older.status).toBe(400);
    expect(older.body.error.details).toMatchObject({ field: 'version', value: '1.1.0-beta.10' });
    expect(malformed.body.error.details).toMatchObject({ field: 'version', value: 'v2' });
    expect(listed.body.data.versions.map((version: { version: string }) => version.version)).toEqual(['1.1.0-rc.1', '1.1.0-beta.2', '1.0.0']);
  });

  it('refuses DELETE with active installations (409) and deletes once they are gone', async () => {
    // Prepare
    const { templateId } = await givenBuiltTemplate(api, owner);
    const installed = (await install(owner, templateId)).body.data;
    // Act
    const refused = await api.as(owner.apiKey).delete(byId(templateId));
    await api.as(owner.apiKey).delete(`${templatesPath}/installations/${installed.installationId}`);
    const deleted = await api.as(owner.apiKey).delete(byId(templateId));
    const read = await api.as(owner.apiKey).get(byId(templateId));
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toMatchObject({ activeInstallations: 1 });
    expect(deleted.body).toEqual({ success: true, message: `template ${templateId} deleted` });
    expect(read.status).toBe(404);
  });

  it('lets no other user change, build or delete a template (403 on a published one), changing nothing', async () => {
    // Prepare
    const { templateId } = await givenPublished();
    const before = await getTemplate(owner, templateId);
    // Act
    const patch = await api.as(buyer.apiKey).patch(byId(templateId), { description: 'mine now' });
    const build = await api.as(buyer.apiKey).post(byId(templateId, '/build'), {});
    const version = await api.as(buyer.apiKey).post(byId(templateId, '/versions'), { version: '9.0.0', gitHash: 'a'.repeat(40) });
    const unpublish = await api.as(buyer.apiKey).post(byId(templateId, '/unpublish'));
    const remove = await api.as(buyer.apiKey).delete(byId(templateId));
    // Assess
    for (const refused of [patch, build, version, unpublish, remove]) expect(refused.status).toBe(403);
    expect(await getTemplate(owner, templateId)).toEqual(before);
  });

  it('takes reviews from installers only, feeding rating and reviewCount', async () => {
    // Prepare
    const { templateId } = await givenPublished();
    const [fan, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
    await install(fan, templateId);
    // Act
    const review = await api.as(fan.apiKey).post(byId(templateId, '/reviews'), { rating: 4, comment: 'neat' });
    const refused = await api.as(stranger.apiKey).post(byId(templateId, '/reviews'), { rating: 1 });
    const listed = await api.as(stranger.apiKey).get(byId(templateId, '/reviews'));
    // Assess
    expect(review.status).toBe(201);
    expect(review.body.data).toMatchObject({ itemType: 'template', itemId: templateId, rating: 4 });
    expect(refused.status).toBe(403);
    expect(listed.body.data).toMatchObject({ rating: 4, reviewCount: 1, total: 1 });
    expect(await getTemplate(stranger, templateId)).toMatchObject({ rating: 4, reviewCount: 1 });
  });
});
