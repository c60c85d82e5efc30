// The console's detail views in a real Chromium: every object opened straight from its own URL (and reloaded) shows
// its name and content, a script's owner reads its code, ids are chosen by name, and a flow shows its warnings.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { type TestBrowser, launchBrowser } from '../support/browser.js';
import { mime, settled, upload } from '../support/documents.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform, uniqueName } from '../support/platform.js';
import { resourceInput } from '../support/resources.js';
import { execute, givenDeployed, givenListed, sdk } from '../support/scripts.js';
import { givenSiteRepo, givenTemplate } from '../support/templates.js';

let api: TestApi;
let user: TestUser;
let browser: TestBrowser;

/** Waits for what the page shows, as a user would (no fixed sleeps). */
const until = <T>(read: () => Promise<T> | T, timeout = 20_000) => expect.poll(read, { timeout, interval: 100 });

beforeAll(async () => {
  [api, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  user = await api.givenUser();
  // Signed in once: the key stays in the tab's session storage across the URLs and reloads below.
  await browser.page.goto(`${api.baseUrl}/`);
  await browser.page.getByLabel('API key').fill(user.apiKey);
  await browser.page.getByLabel('API key').press('Enter');
  await browser.page.getByText(`Signed in as ${user.username}`).waitFor({ timeout: 20_000 });
});
afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

const handlerReturning = (marker: string) => `export async function handler(event) {\n  return { marker: '${marker}' };\n}\n`;

/** Opens `hash` as a pasted link would, then reloads it: what follows must come from the URL alone. */
async function open(hash: string) {
  await browser.page.goto(`${api.baseUrl}/${hash}`);
  await browser.page.reload();
}

describe('console: every object has its own URL', () => {
  it('opens a script, run, flow, document, resource and template from their URLs and shows their names and content', async () => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure-views'));
    // Prepare
    const scriptName = uniqueName('reader');
    const script = await givenDeployed(api, user, { name: scriptName, code: handlerReturning('first-marker') });
    await api.as(user.apiKey).post(sdk('createVersion'), { scriptId: script.id, code: handlerReturning('second-marker'), commitMessage: 'second' });
    const executionId = (await execute(api, user, script.id)).body.data.executionId as string;
    const flow = await givenTimeFlow(api, user, script.id, { title: uniqueName('Morning report') });
    const documentId = (await upload(api, user, { bytes: 'The frame warranty lasts ten years.', filename: 'notes.txt', mimeType: mime.text })).body.data
      .documentId as string;
    await settled(api, user, documentId);
    const resource = resourceInput({ name: uniqueName('weather') });
    const resourceId = (await api.as(user.apiKey).post('/api/sdk/v1/resources', resource)).body.data.id as string;
    const { repo, gitHash } = givenSiteRepo();
    const templateId = await givenTemplate(api, user, { name: 'Fixture site', repository: repo.url, gitHash });
    const region = (name: string) => page.getByRole('region', { name, exact: true });
    try {
      // Act, Assess: the script with the code of its deployed version, read-only, then of the version picked.
      await open(`#/scripts/${encodeURIComponent(script.id)}`);
      const code = region('Code').locator('.cm-content');
      await until(() => code.textContent()).toContain("marker: 'first-marker'");
      expect(await code.getAttribute('contenteditable')).toBe('false');
      expect(await region(`Script ${scriptName}`).getByRole('heading', { level: 2 }).textContent()).toContain(scriptName);
      await region('Code').getByLabel('Version shown').selectOption({ label: 'v2' });
      await until(() => code.textContent()).toContain("marker: 'second-marker'");
      await until(() => region('Code').textContent()).toContain('Version 2 (1.0.1)');
      await screenshot('20-script-code');
      // Editing starts from the code shown and saves the next version.
      await region('Code').getByRole('button', { name: 'Edit as the next version' }).click();
      const editing = page.getByRole('form', { name: 'Edit the code' });
      await until(() => editing.locator('.cm-content').textContent()).toContain("marker: 'second-marker'");
      await editing.locator('.cm-content').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(handlerReturning('third-marker'));
      await editing.getByRole('button', { name: 'Save as new version' }).click();
      await until(() => editing.count()).toBe(0);
      expect((await api.as(user.apiKey).get(`/api/sdk/v1/scripts/${script.id}/versions/3/code`)).body.data.code).toBe(handlerReturning('third-marker'));

      // The run, named by its script, with its output.
      await open(`#/runs/${encodeURIComponent(executionId)}`);
      await until(() => region(`Run ${executionId}`).getByRole('heading', { level: 2 }).textContent()).toBe(`Run ${executionId} of ${scriptName}`);
      expect(await page.getByLabel('Output').textContent()).toContain('first-marker');

      // The flow: title, description, trigger and the script it runs, by name.
      await open(`#/flows/${encodeURIComponent(flow.id)}`);
      const flowView = region(`Flow ${flow.title}`);
      await until(() => flowView.getByRole('link', { name: scriptName }).count()).toBe(1);
      expect(await flowView.textContent()).toMatch(/Sends the report every weekday at 9.*Triggertime, cron 0 9 \* \* 1-5 \(UTC\).*Executiondirect/);
      await screenshot('21-flow-view');

      // The document: name, status and its text in chunks.
      await open(`#/documents/${encodeURIComponent(documentId)}`);
      const documentView = region('Document notes.txt');
      await until(() => documentView.getByRole('table', { name: 'Chunks' }).textContent()).toContain('The frame warranty lasts ten years.');
      expect(await documentView.getByRole('heading', { level: 2 }).textContent()).toBe('notes.txt completed');
      await screenshot('22-document-view');

      // The resource (a draft its owner sees) with its methods, and the template with its source.
      await open(`#/marketplace/resources/${encodeURIComponent(resourceId)}`);
      const resourceView = region(`${resource.name} details`);
      await until(() => resourceView.getByRole('table', { name: 'Methods' }).textContent()).toContain('GET /forecast/{city}');
      expect(await resourceView.textContent()).toContain('Forecasts by city');
      await open(`#/templates/${encodeURIComponent(templateId)}`);
      await until(() => region('Template Fixture site').textContent()).toContain(`${repo.url} @ ${gitHash}`);
      await screenshot('23-template-view');
    } finally {
      repo.remove();
    }
  }, 120_000);
});

describe("console: a script's code is its owner's", () => {
  it('shows another user the refusal of a listed script, not its code', async () => {
    // Prepare: a published script, opened by another user in a tab of their own.
    const listed = await givenListed(api, user, { code: handlerReturning('owners-secret') });
    const stranger = await api.givenUser();
    const page = await browser.context.newPage();
    try {
      await page.goto(`${api.baseUrl}/#/scripts/${encodeURIComponent(listed.id)}`);
      await page.getByLabel('API key').fill(stranger.apiKey);
      await page.getByLabel('API key').press('Enter');
      // Act, Assess
      const code = page.getByRole('region', { name: 'Code', exact: true });
      await until(() => code.getByRole('alert').textContent()).toMatch(/^FORBIDDEN: /);
      expect(await code.locator('.cm-content').count()).toBe(0);
      expect(await page.content()).not.toContain('owners-secret');
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('console: names instead of ids', () => {
  it('creates a time flow for a script picked by name and filters runs by script name', async () => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure-pickers'));
    // Prepare
    const [first, second] = [uniqueName('first'), uniqueName('second')];
    const firstScript = await givenDeployed(api, user, { name: first });
    const secondScript = await givenDeployed(api, user, { name: second });
    await Promise.all([execute(api, user, firstScript.id), execute(api, user, secondScript.id)]);
    const title = uniqueName('Nightly');
    // Act: the flow's script is chosen from a list of names.
    await open('#/flows');
    const form = page.getByRole('form', { name: 'Create a flow' });
    await form.getByLabel('Title').fill(title);
    await until(() => form.getByRole('option', { name: second, exact: true }).count()).toBe(1);
    await form.getByRole('combobox', { name: /^Script/ }).selectOption({ label: second });
    await form.getByLabel('Description').fill('Runs at night');
    await form.getByLabel('Schedule').fill('0 2 * * *');
    await form.getByRole('button', { name: 'Create flow' }).click();
    // Assess: the new flow's own page names the script, and the API holds its id.
    const flowView = page.getByRole('region', { name: `Flow ${title}` });
    await until(() => flowView.getByRole('link', { name: second }).count()).toBe(1);
    const flowId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    const stored = (await api.as(user.apiKey).post(flowsPath('getFlow'), { assignmentId: flowId })).body.data;
    expect(stored).toMatchObject({ title, scriptId: secondScript.id });

    // Act: runs filtered by a script picked by name.
    await open('#/runs');
    const filters = page.getByRole('form', { name: 'Filter runs' });
    await until(() => filters.getByRole('option', { name: first, exact: true }).count()).toBe(1);
    await filters.getByRole('combobox', { name: /^Script/ }).selectOption({ label: first });
    await filters.getByRole('button', { name: 'Apply' }).click();
    // Assess: only the first script's run, named, not its id.
    const rows = page.getByRole('table', { name: 'Runs, newest first' }).getByRole('row');
    await until(() => rows.count()).toBe(2);
    expect(await rows.nth(1).getByRole('link', { name: first }).count()).toBe(1);
    expect(await rows.nth(1).textContent()).not.toContain(secondScript.id);
    await screenshot('24-runs-by-script-name');
  }, 90_000);
});

describe('console: flow warnings', () => {
  it("shows the warnings of a flow's answer on the flow's page", async (context) => {
    const { page, screenshot } = browser;
    onTestFailed(() => screenshot('failure-warnings'));
    // Prepare: an llm flow on a platform without a language model.
    const title = uniqueName('Summaries');
    const created = await api.as(user.apiKey).post(flowsPath('createEventFlow'), {
      title,
      description: 'Summarises mail',
      eventType: 'mailapp.email_received',
      executionType: 'llm',
      prompt: 'Summarise it.',
      conditions: { operator: 'AND', conditions: [{ field: 'from', operator: 'equals', value: 'boss@acme.example' }] },
    });
    // Until the flows area accepts llm flows without a model (and warns), it refuses them: nothing to show yet.
    if (created.status !== 200) context.skip(`llm flows without a model are refused here: ${created.text}`);
    const warnings = created.body.data.warnings as string[];
    expect(warnings.length).toBeGreaterThan(0);
    // Act
    await open(`#/flows/${encodeURIComponent(created.body.data.id)}`);
    // Assess
    const shown = page.getByRole('region', { name: `Flow ${title}` }).getByRole('list', { name: 'Warnings' });
    await until(() => shown.getByRole('listitem').allTextContents()).toEqual(warnings);
    await screenshot('25-flow-warnings');
  }, 60_000);
});
