// The web console in a real Chromium against the local platform: one journey through every page, as a user would
// click it, with a screenshot of each page in test/.screenshots/ (gitignored).
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createConsoleServer } from '../../functions/adapters/local/console-server.js';
import { type TestBrowser, launchBrowser } from '../support/browser.js';
import { handbookPages } from '../support/documents.js';
import { type TestApi, type TestUser, startTestPlatform, uniqueName } from '../support/platform.js';
import { type Upstream, startUpstream } from '../support/resources.js';
import { givenSiteRepo } from '../support/templates.js';

let api: TestApi;
let user: TestUser;
let upstream: Upstream;
let browser: TestBrowser;

/** Waits for what the page shows, as a user would (no fixed sleeps). */
const until = <T>(read: () => Promise<T> | T, timeout = 20_000) => expect.poll(read, { timeout, interval: 100 });

beforeAll(async () => {
  [api, upstream, browser] = await Promise.all([startTestPlatform(), startUpstream(), launchBrowser()]);
  user = await api.givenUser();
});
afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  await api?.stop();
});

/** A GET whose path is sent as written: fetch would resolve its dot segments first. */
const rawGet = (path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(api.baseUrl);
    request({ hostname, port, path, method: 'GET' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });

describe('console: served by the local server', () => {
  it('answers the console at / and leaves API paths to the API', async () => {
    // Act
    const [home, unknownApi, devAccount] = await Promise.all([
      fetch(`${api.baseUrl}/`),
      fetch(`${api.baseUrl}/api/sdk/v1/no-such-operation`),
      fetch(`${api.baseUrl}/console/dev-account.json`),
    ]);
    // Assess
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await home.text()).toContain('<script type="module" src="app.js">');
    expect(unknownApi.status).toBe(404);
    expect(((await unknownApi.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    // The test platform has no dev account, so there is no key to hand out.
    expect(devAccount.status).toBe(404);
  });

  it('answers no file outside its folder, however the path climbs', async () => {
    // Act
    const answers = await Promise.all(['/../../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/chunks/../../package.json'].map((path) => rawGet(path)));
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body).not.toMatch(/root:|"name"/);
    }
  });

  it('prefills the sign-in with the dev account key of local mode', async () => {
    // Prepare
    const folder = await api.platform.buildConsole();
    const local = createConsoleServer({ build: async () => folder, devApiKey: () => 'dev-key-for-the-console' });
    const server = createServer((request, response) => local.handle(request, response) || response.writeHead(404).end());
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const page = await browser.context.newPage();
    try {
      // Act
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      // Assess
      await until(() => page.getByLabel('API key').inputValue()).toBe('dev-key-for-the-console');
    } finally {
      await page.close();
      server.close();
    }
  });
});

describe('console: a user journey through every page', () => {
  it('signs in, publishes and installs a resource, runs a script that calls it, follows a flow, searches a document and sees the run on the usage chart', async () => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure'));
    const resourceName = uniqueName('weather');
    const form = (name: string) => page.getByRole('form', { name });

    // Sign in with the keyboard.
    await page.goto(`${api.baseUrl}/`);
    await page.getByLabel('API key').fill(user.apiKey);
    await screenshot('01-sign-in');
    await page.getByLabel('API key').press('Enter');
    await until(() => page.getByText(`Signed in as ${user.username}`).count()).toBe(1);

    // Marketplace, my resources: create and publish a resource on a real local upstream.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('tab', { name: 'My resources' }).click();
    const create = form('Create a resource');
    await create.getByLabel('Name', { exact: true }).fill(resourceName);
    await create.getByLabel('Description').fill('Forecasts by city');
    await create.getByLabel('Base URL').fill(upstream.baseUrl);
    await create.getByLabel('Authentication').selectOption('api_key');
    await create.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: `Publish ${resourceName}` }).click();
    await until(() => page.getByRole('row', { name: new RegExp(`${resourceName} published`) }).count()).toBe(1);
    await screenshot('02-marketplace-my-resources');

    // Marketplace: find it with the search filter, read its detail, install it.
    await page.getByRole('tab', { name: 'Resources', exact: true }).click();
    await form('Filter resources').getByLabel('Search').fill(resourceName);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: resourceName }).click();
    await until(() => page.getByRole('region', { name: `${resourceName} details` }).textContent()).toMatch(/Pricing.*Rating.*Installs/);
    await page.getByRole('button', { name: 'Install' }).click();
    const credentials = page.getByRole('form', { name: 'Authenticate the installation' });
    await credentials.getByLabel('apiKey').fill('key-of-the-installer');
    await credentials.getByRole('button', { name: 'Save credentials' }).click();
    await until(() => credentials.getByRole('status').textContent()).toContain('authenticated');
    await screenshot('03-marketplace-detail');

    // My scripts: create one that calls the resource, in the code editor.
    await page.goto(`${api.baseUrl}/#/scripts/new`);
    const newScript = form('Create a script');
    const scriptName = uniqueName('forecaster');
    await newScript.getByLabel('Name', { exact: true }).fill(scriptName);
    await newScript
      .getByRole('group', { name: /^Allowed resources/ })
      .getByRole('checkbox', { name: resourceName })
      .check();
    const code = (method: string) =>
      `export async function handler(event) {\n  const city = event.data?.city ?? 'Lisbon';\n  console.log('calling forecast for', city);\n  return await resources['${resourceName}'].${method}({ city });\n}\n`;
    const typeCode = async (text: string) => {
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(text);
    };
    // Lint on the fly: a method the resource lacks is marked on its line, and the mark goes once it is fixed.
    await typeCode(code('getForcast'));
    await until(() => page.locator('.cm-lint-marker-error').count()).toBe(1);
    await typeCode(code('getForecast'));
    await until(() => page.locator('.cm-lint-marker-error').count()).toBe(0);
    await screenshot('04-script-create');
    await newScript.getByRole('button', { name: 'Create script' }).click();
    await page.getByRole('button', { name: 'Deploy version 1 (1.0.0)' }).click();
    await until(() => page.getByText('draft, deployed version 1 (1.0.0)', { exact: true }).count()).toBeGreaterThan(0);

    // Run it with input and read its output, then its logs on the run's page.
    await form('Run the script').getByLabel('Input data (JSON)').fill('{"city": "Oslo"}');
    await page.getByRole('button', { name: 'Run now' }).click();
    await until(() => page.getByLabel('Output').textContent()).toContain('/forecast/Oslo');
    expect(upstream.received.at(-1)!.headers['x-api-key']).toBe('key-of-the-installer');
    await screenshot('05-script-detail');
    await page.getByRole('status').getByRole('link').click();
    await until(() => page.getByLabel('Logs').textContent()).toContain('calling forecast for Oslo');
    await screenshot('06-run-detail');
    await page.goto(`${api.baseUrl}/#/runs`);
    await until(() => page.getByRole('row', { name: /completed manual/ }).count()).toBe(1);
    await screenshot('07-runs');

    // Flows: an invalid cron shows the API's code and message; an event flow built with the condition builder runs now.
    await page.goto(`${api.baseUrl}/#/flows`);
    const newFlow = form('Create a flow');
    await newFlow.getByLabel('Title').fill('Hourly forecast');
    await newFlow.getByRole('combobox', { name: /^Script/ }).selectOption({ label: scriptName });
    await newFlow.getByLabel('Description').fill('Fetches the forecast');
    await newFlow.getByLabel('Schedule').fill('61 * * * *');
    await newFlow.getByRole('button', { name: 'Create flow' }).click();
    await until(() => page.getByRole('alert').textContent()).toMatch(/^VALIDATION_ERROR: /);
    await newFlow.getByRole('radio', { name: 'Event' }).check();
    await newFlow.getByLabel('Title').fill('Forecast on deploy messages');
    await newFlow.getByRole('group', { name: 'Condition 1.1' }).getByLabel('Value').fill('deploy');
    await newFlow.getByRole('button', { name: 'Create flow' }).click();
    await until(() => page.getByRole('region', { name: 'Flow Forecast on deploy messages' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Run now' }).click();
    await until(() => page.getByRole('table', { name: 'Results, newest first' }).getByText('success').count()).toBe(1);
    await page.getByRole('button', { name: 'Pause' }).click();
    await until(() => page.getByRole('button', { name: 'Resume' }).count()).toBe(1);
    await screenshot('08-flows');

    // Documents: upload with progress and status, then search with scores and highlighted passages.
    await page.goto(`${api.baseUrl}/#/documents`);
    await page
      .getByLabel(/^File/)
      .setInputFiles({ name: 'handbook.txt', mimeType: 'text/plain', buffer: Buffer.from(handbookPages.map((lines) => lines.join(' ')).join('\n\n')) });
    await form('Upload a document').getByRole('button', { name: 'Upload' }).click();
    await until(() => page.getByText(/completed, \d+ chunks/).count(), 60_000).toBe(1);
    expect(await page.getByLabel('Minimum score').inputValue()).toBe('0.7'); // the API's default threshold
    await page.getByLabel('Question or words').fill('how long is the warranty on a bicycle frame');
    await page.getByRole('button', { name: 'Search' }).click();
    await until(() => page.locator('table mark').count()).toBeGreaterThan(0);
    expect(await page.getByRole('table', { name: /^Results for/ }).textContent()).toContain('ten-year warranty');
    // Graphs and sharing: into a new group graph, beside its primary personal graph.
    await page.getByLabel('New group graph').fill('Team docs');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('table', { name: 'Documents, most recent first' }).getByRole('link', { name: 'handbook.txt' }).click();
    const sharing = page.getByRole('form', { name: 'Share to a graph' });
    await until(() => sharing.getByRole('option', { name: 'Team docs (group)' }).count()).toBe(1);
    await sharing.getByLabel('Share to graph').selectOption({ label: 'Team docs (group)' });
    await sharing.getByRole('button', { name: 'Share' }).click();
    await until(() => page.getByRole('table', { name: 'In graphs' }).getByRole('row').count()).toBe(3);
    await screenshot('09-documents');

    // Usage: today's runs on the chart and in the table behind it.
    await page.goto(`${api.baseUrl}/#/usage`);
    await until(() => page.locator('.chart canvas').count()).toBe(2);
    const today = page.getByRole('table', { name: 'Per day (UTC)' }).getByRole('row').nth(1);
    await until(async () => Number(await today.getByRole('cell').nth(2).textContent())).toBeGreaterThanOrEqual(2);
    await screenshot('10-usage');

    // Templates: the page with its create form and the caller's installations.
    await page.goto(`${api.baseUrl}/#/templates`);
    await until(() => form('Create a template').count()).toBe(1);
    await screenshot('11-templates');
  }, 90_000);
});

describe('console: templates', () => {
  it('creates a template, builds it with live logs, publishes it, installs it with its customization form and links its page', async () => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure-templates'));
    const { repo, gitHash } = givenSiteRepo();
    const name = uniqueName('site');
    try {
      // Create and build, following the build's logs.
      await page.goto(`${api.baseUrl}/#/templates`);
      const create = page.getByRole('form', { name: 'Create a template' });
      await create.getByLabel('Name', { exact: true }).fill(name);
      await create.getByLabel('Description').fill('A tiny site');
      await create.getByLabel('Category').fill('landing');
      await create.getByLabel('Repository (git URL)').fill(repo.url);
      await create.getByLabel('Commit').fill(gitHash);
      await create.getByRole('button', { name: 'Create template' }).click();
      await page.getByRole('button', { name: 'Build v1.0.0' }).click();
      await until(() => page.getByLabel('Build logs').textContent(), 60_000).toContain('built v1');
      await until(() => page.getByText(/^Build success/).count(), 60_000).toBe(1);
      await screenshot('12-template-build');

      // Publish, then install from the marketplace through the form its template.json fields describe.
      await page.getByRole('button', { name: 'Publish' }).click();
      await until(() =>
        page
          .getByRole('region', { name: `Template ${name}` })
          .getByText('published', { exact: true })
          .count(),
      ).toBe(1);
      await page.goto(`${api.baseUrl}/#/marketplace`);
      await page.getByRole('tab', { name: 'Templates' }).click();
      await page.getByRole('link', { name }).click();
      const customization = page.getByRole('form', { name: 'Customization' });
      await until(() => customization.getByLabel('Primary colour').inputValue()).toBe('#112233');
      await customization.getByLabel('hero.title').fill('Welcome');
      await customization.getByLabel('layout.columns').fill('3');
      await screenshot('13-template-install');
      await customization.getByRole('button', { name: 'Install' }).click();
      await until(() => page.getByRole('link', { name: 'Open the page' }).count(), 60_000).toBe(1);

      // My installations link to the page.
      await page.goto(`${api.baseUrl}/#/templates`);
      const installations = page.getByRole('table', { name: 'Your template installations' });
      await until(() => installations.getByRole('link').count()).toBe(1);
      expect(await installations.getByRole('link').getAttribute('href')).toMatch(/^http/);
      await screenshot('14-template-installations');
    } finally {
      repo.remove();
    }
  }, 90_000);
});
