// The tenant boundary, generated from the route table: every apiKey route that takes the id of an object is called on
// the owner's objects as another user, with no key, with a revoked key and with a key lacking the route's scope.
import { consent, startAuthorization } from '../support/oauth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.js';
import { buildOpenApiDocument } from '../../functions/platform/openapi.js';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, execute, sdk } from '../support/scripts.js';
import { givenTimeFlow } from '../support/flows.js';
import { givenInstalled, givenPublishedResource, resourceInput } from '../support/resources.js';
import { mime, upload } from '../support/documents.js';
import { buildToEnd, givenBuiltTemplate, givenSiteRepo, givenTemplate, pricing, templatesPath } from '../support/templates.js';

let api: TestApi;
let owner: TestUser;
let stranger: TestUser;
const ids: Record<string, string> = {};
let revokedKey: string;
/** Two narrow keys: each route is tried with the one that lacks its scope. */
const narrowKeys: Array<{ scope: string; apiKey: string }> = [];

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters?: Array<{ name: string; in: string }>;
  'x-required-scopes'?: string[];
  requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, unknown> } } } };
}

const document = buildOpenApiDocument(routes, 'http://local', 'test');
const apiKeyOperations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods as Record<string, Omit<Operation, 'method' | 'path'>>)
    .filter(([, operation]) => routes.find((route) => route.operation === operation.operationId)?.auth === 'apiKey')
    .map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })),
);
const fieldsOf = (operation: Operation) => [
  ...(operation.parameters ?? []).map((parameter) => parameter.name),
  ...Object.keys(operation.requestBody?.content['application/json'].schema.properties ?? {}),
];
/** Fields named like ids that name no object: a stream's position to resume after. */
const positions = new Set(['lastEventId']);
const idFields = (operation: Operation) => fieldsOf(operation).filter((field) => /Id$/.test(field) && !positions.has(field));
/** Resources and templates both name their installations `installationId`. */
const idFor = (operation: Operation, field: string) =>
  ids[operation.path.startsWith(`${templatesPath}/`) && field === 'installationId' ? 'templateInstallationId' : field];
const scopeless = (operation: Operation) => narrowKeys.find((key) => !(operation['x-required-scopes'] ?? []).includes(key.scope))!.apiKey;

/** The request naming the owner's objects: ids in the path, the query string or the body. */
function requestFor(operation: Operation) {
  const fields = idFields(operation);
  let path = operation.path;
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = idFor(operation, field)!;
    if (path.includes(`{${field}}`)) path = path.replace(`{${field}}`, encodeURIComponent(value));
    else values[field] = value;
  }
  const inQuery = operation.method === 'GET' || operation.method === 'DELETE';
  if (inQuery && Object.keys(values).length) path += `?${new URLSearchParams(values)}`;
  return { method: operation.method, path, body: inQuery ? undefined : values };
}

const call = (operation: Operation, apiKey?: string): Promise<ApiResponse> => {
  const request = requestFor(operation);
  return api.request(request.method, request.path, { ...(request.body && { body: request.body }), headers: apiKey ? { 'x-api-key': apiKey } : {} });
};

const ownerIds = () => Object.values(ids);

/** Waits on a callback (its id in the logs) or on the owner's approval, as the run's data asks. */
const durableWaits = `export async function handler(event, context) {
  if (event.data.wait === 'approval') return context.waitForApproval('ship', { message: 'isolation' });
  return context.waitForCallback('reply', async (callbackId) => { console.log('callback:' + callbackId); }, { timeout: { hours: 1 } });
}`;

/** What the owner sees of its objects: must be the same after every refused attempt. */
async function ownerView() {
  const reads = await Promise.all([
    api.as(owner.apiKey).post(sdk('getScript'), { scriptId: ids.scriptId }),
    api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: ids.scriptId }),
    api.as(owner.apiKey).get(`/api/sdk/v1/resources/${ids.resourceId}`),
    api.as(owner.apiKey).post('/api/sdk/v1/flows/getFlow', { assignmentId: ids.assignmentId }),
    api.as(owner.apiKey).get(`/api/sdk/v1/documents/${ids.documentId}`),
    api.as(owner.apiKey).get('/api/sdk/v1/graphs'),
    api.as(owner.apiKey).get(`/api/sdk/v1/scripts/${ids.scriptId}/subscriptions`),
    api.as(owner.apiKey).get('/api/sdk/v1/keys?limit=100'),
    api.as(owner.apiKey).get(`/api/sdk/v1/documents/${ids.documentId}/graphs`),
    api.as(owner.apiKey).post(sdk('getFlowScript'), { flowId: ids.flowId }),
    api.as(owner.apiKey).get(`/api/sdk/v1/resources/installations/${ids.installationId}/usage`),
    api.as(owner.apiKey).get(`${templatesPath}/${ids.templateId}`),
    api.as(owner.apiKey).get(`${templatesPath}/${ids.templateId}/builds/${ids.buildId}`),
    api.as(owner.apiKey).get(`${templatesPath}/installations/${ids.templateInstallationId}`),
  ]);
  return reads.map((read) => read.body);
}

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
  const as = api.as(owner.apiKey);
  const script = await givenDeployed(api, owner, { private: true });
  ids.scriptId = script.id;
  ids.versionId = (await as.get(`/api/sdk/v1/scripts/${script.id}/versions`)).body.data.versions[0].versionId;
  ids.executionId = (await execute(api, owner, script.id)).body.data.executionId;
  ids.parentExecutionId = ids.executionId;
  ids.assignmentId = (await givenTimeFlow(api, owner, script.id)).id;
  // A durable run waiting on a callback, another on an approval: the ids the run operations name.
  const durable = await givenDeployed(api, owner, { private: true, code: durableWaits, config: { durable: true } });
  const callbackRun = (await execute(api, owner, durable.id, { wait: 'callback' })).body.data.executionId;
  await execute(api, owner, durable.id, { wait: 'approval' });
  const waitingLogs = (await as.post(sdk('getExecution'), { executionId: callbackRun })).body.data.logs as string[];
  ids.callbackId = waitingLogs.join('\n').match(/callback:(\S+)/)![1]!;
  ids.approvalId = (await as.get('/api/sdk/v1/approvals')).body.data.approvals[0].approvalId;
  ids.flowId = ids.assignmentId;
  ids.resourceId = (await as.post('/api/sdk/v1/resources', resourceInput())).body.data.id;
  ids.installationId = (await givenInstalled(api, owner, await givenPublishedResource(api, owner))).installationId;
  const uploaded = (await upload(api, owner, { bytes: 'a note on tenant isolation', filename: 'note.txt', mimeType: mime.text })).body.data;
  ids.documentId = uploaded.documentId;
  ids.graphId = (await as.post('/api/sdk/v1/graphs', { name: 'isolation' })).body.data.graphId;
  ids.targetGraphId = ids.graphId;
  await as.post(`/api/sdk/v1/documents/${ids.documentId}/share`, { targetGraphId: ids.graphId });
  ids.userId = owner.userId;
  // An MCP client's authorization request the owner decided: from then on it is the owner's alone.
  ids.requestId = (await startAuthorization(api)).requestId;
  await consent(api, owner, { requestId: ids.requestId, approve: false });
  ids.subscriptionId = (await as.post(`/api/sdk/v1/scripts/${script.id}/subscriptions`, { eventType: 'isolation.test' })).body.data.subscriptionId;
  // A draft template (invisible to others) with a build, and a published one the owner installed.
  const { repo, gitHash } = givenSiteRepo();
  ids.templateId = await givenTemplate(api, owner, { repository: repo.url, gitHash });
  ids.buildId = (await buildToEnd(api, owner, ids.templateId)).body.data.buildId;
  const listed = await givenBuiltTemplate(api, owner);
  await as.post(`${templatesPath}/${listed.templateId}/publish`, { pricing });
  ids.templateInstallationId = (await as.post(`${templatesPath}/${listed.templateId}/install`, { customization: {} })).body.data.installationId;
  const spare = (await as.post('/api/sdk/v1/keys', { name: 'spare' })).body.data;
  ids.keyId = spare.keyId;
  const revoked = (await as.post('/api/sdk/v1/keys', { name: 'revoked' })).body.data;
  await as.delete(`/api/sdk/v1/keys/${revoked.keyId}`);
  revokedKey = revoked.apiKey;
  for (const scope of ['templates:install', 'payments:read'])
    narrowKeys.push({ scope, apiKey: (await as.post('/api/sdk/v1/keys', { name: scope, scopes: [scope] })).body.data.apiKey });
}, 300_000);
afterAll(() => api.stop());

describe('hardening: isolation matrix from the route table', () => {
  it('refuses every object route to another user, no key, a revoked key and a key without the scope, changing nothing', async () => {
    // Prepare
    for (const [field, value] of Object.entries(ids)) expect(value, field).toBeTruthy();
    const covered = apiKeyOperations.filter((operation) => idFields(operation).length > 0 && idFields(operation).every((field) => idFor(operation, field)));
    const uncovered = apiKeyOperations
      .filter((operation) => idFields(operation).some((field) => !idFor(operation, field)))
      .map((operation) => operation.operationId);
    const before = await ownerView();
    const leaks: string[] = [];
    let attempts = 0;
    // Act
    for (const operation of covered) {
      const verdicts: Array<[string, ApiResponse, number[]]> = [
        ['another user', await call(operation, stranger.apiKey), [400, 403, 404]],
        ['no key', await call(operation), [401]],
        ['a revoked key', await call(operation, revokedKey), [401]],
        ['a key without the scope', await call(operation, scopeless(operation)), [403]],
      ];
      for (const [who, response, allowed] of verdicts) {
        attempts += 1;
        const enveloped = response.body?.success === false && typeof response.body.error?.code === 'string';
        // A listing filtered by an id answers the stranger's own (empty) list: a leak only if it shows the owner's objects.
        const ownListing =
          who === 'another user' &&
          response.status === 200 &&
          /^(list|search)/.test(operation.operationId) &&
          !ownerIds().some((id) => response.text.includes(id));
        if (!ownListing && (!allowed.includes(response.status) || !enveloped))
          leaks.push(`${operation.operationId} as ${who}: ${response.status} ${response.text.slice(0, 200)}`);
      }
    }
    const after = await ownerView();
    console.log(
      `isolation matrix: ${covered.length} routes × 4 attempts = ${attempts} attempts, leaks ${leaks.length}; routes naming objects not built here: ${uncovered.join(', ') || 'none'}`,
    );
    // Assess
    expect(leaks).toEqual([]);
    expect(before.filter((body) => body?.success !== true)).toEqual([]);
    expect(after).toEqual(before);
    expect(uncovered).toEqual([]);
  }, 600_000);

  it('lets the key createScript returns run its own script only', async () => {
    // Prepare
    const own = await givenDeployed(api, owner, { private: true });
    // Act
    const ownRun = await api.as(own.apiKey).post(sdk('executeScript'), { scriptId: own.id, data: {} });
    const otherRun = await api.as(own.apiKey).post(sdk('executeScript'), { scriptId: ids.scriptId, data: {} });
    const documents = await api.as(own.apiKey).get('/api/sdk/v1/documents');
    const deleted = await api.as(own.apiKey).delete(`/api/sdk/v1/documents/${ids.documentId}`);
    // Assess
    expect(ownRun.status).toBe(200);
    expect([otherRun.status, documents.status, deleted.status]).toEqual([403, 403, 403]);
    expect((await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${ids.documentId}`)).status).toBe(200);
  });
});
