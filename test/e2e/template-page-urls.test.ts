// Local page and preview addresses every HTTP client can open: `<sub>.localhost` needs a resolver that knows it
// (browsers, curl); the path form beside it (`cdnPathUrl`, `pagePathUrl`) is on the API's own address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { buildToEnd, givenSiteRepo, givenTemplate, templatesPath } from '../support/templates.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

const facts = (html: string) => JSON.parse(/<script type="application\/json" id="facts">(.*)<\/script>/.exec(html)![1]!) as { label: string };

describe('templates: page addresses without a special resolver', () => {
  it("returns cdnPathUrl beside cdnUrl for a build and a template, and Node's fetch opens it", async () => {
    // Prepare
    const { repo, gitHash } = givenSiteRepo();
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    // Act
    const built = await buildToEnd(api, owner, templateId);
    const template = (await api.as(owner.apiKey).get(`${templatesPath}/${templateId}`)).body.data;
    const page = await fetch(built.body.data.cdnPathUrl);
    // Assess
    const sub = new URL(built.body.data.cdnUrl).hostname.split('.')[0];
    expect(built.body.data.cdnPathUrl).toBe(`${api.baseUrl}/pages/${sub}/`);
    expect(template).toMatchObject({ cdnUrl: built.body.data.cdnUrl, cdnPathUrl: built.body.data.cdnPathUrl });
    expect(page.status).toBe(200);
    expect(facts(await page.text()).label).toBe('v1');
  });

  it("returns pagePathUrl beside pageUrl for an installation, and Node's fetch opens it", async () => {
    // Prepare
    const { repo, gitHash } = givenSiteRepo();
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    await buildToEnd(api, owner, templateId);
    // Act
    const installed = await api.as(owner.apiKey).post(`${templatesPath}/${templateId}/install`, { customization: {} });
    const page = await fetch(installed.body.data.pagePathUrl);
    // Assess
    expect(installed.body.data.pagePathUrl).toBe(`${api.baseUrl}/pages/${installed.body.data.subdomain}/`);
    expect(installed.body.data.pageUrl).toMatch(new RegExp(`^http://${installed.body.data.subdomain}\\.localhost:\\d+/$`));
    expect(page.status).toBe(200);
    expect(facts(await page.text()).label).toBe('v1');
  });

  it('has no path address before anything was built', async () => {
    // Prepare
    const { repo, gitHash } = givenSiteRepo();
    const templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
    // Act
    const template = (await api.as(owner.apiKey).get(`${templatesPath}/${templateId}`)).body.data;
    // Assess
    expect(template).toMatchObject({ cdnUrl: null, cdnPathUrl: null });
  });
});
