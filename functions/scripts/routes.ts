// The interface's Scripts (REST) table and its SDK operations at POST /api/sdk/v1/scripts/<operationName>,
// plus install, uninstall and reviews. Event subscriptions, createWebhook and createSchedule belong to the events area.
import { Review, ReviewList } from '#functions/reviews/schemas.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import { type FunctionSpec, type RouteSpec, type TableAccess, defineRoutes } from '#platform/route.js';
import { Message, RunningRun } from '#platform/schemas.js';
import { scopes } from '#platform/scopes.js';
import type { TableName } from '#platform/table-definition.js';
import * as out from './views/outputs.js';
import * as input from './schemas.js';

/** Changing scripts takes a full key (`*`), or `scripts:manage` once keys can hold it; running one also takes `scripts:execute`, or the key createScript returns (bound to that script). */
const manage = ['scripts:manage'];
const execute = ['scripts:manage', 'scripts:execute', 'scripts:{scriptId}:execute'];

type Tables = Partial<Record<TableName, TableAccess>>;
const read: Tables = { scripts: 'read', scriptInstallations: 'read' };
const edit: Tables = { scripts: 'write', scriptVersions: 'write', scriptInstallations: 'read' };
/** What opening a wait for an approval (approvers looked up by name or id, the script's owner) or an event touches. */
const waitKindTables: Tables = { scripts: 'read', users: 'read', usernames: 'read', approvals: 'write', approverInbox: 'write', eventWaits: 'write' };
/** A run reads the account's budget and calls resources as its user, with what the resources area's call route needs. */
const run: Tables = {
  ...waitKindTables,
  ...resourceRoutes.callResource.tables,
  ...edit,
  scriptExecutions: 'write',
  scriptExecutionLogs: 'write',
  scriptCounters: 'write',
  scriptSteps: 'write',
  users: 'read',
};
/**
 * Scripts run up to 300 s: the function answers within the run wait (about 25 s) or with 202, and the run goes on
 * in the same function invoked again asynchronously (selfInvoke), which outlives it to record the result.
 */
const runs: Pick<RouteSpec, 'tables' | 'uses' | 'scopes' | 'timeoutSeconds' | 'accepted' | 'idempotency'> = {
  tables: run,
  idempotency: 'caller',
  // A durable run checkpoints its waits with one-shots and announces a failure on the bus.
  uses: ['scriptFunctions', 'selfInvoke', 'scheduler', 'eventBus', ...(resourceRoutes.callResource.uses ?? [])],
  scopes: execute,
  timeoutSeconds: 310,
  accepted: {
    output: RunningRun,
    description:
      'the run goes on past the synchronous wait (about 25 s): follow it with getExecution (or GET .../executions/{executionId}) until its status is no longer running',
  },
};
/** A new version counts the versions using its installed tree in scriptCounters; a delete counts them down. */
const create: Tables = {
  scripts: 'write',
  scriptVersions: 'write',
  scriptInstallations: 'write',
  apiKeys: 'write',
  scriptRegistries: 'read',
  scriptCounters: 'write',
};
/** A new version installs its packages: the account's registry token is unsealed and handed to the installer function, which stores the tree; the code is stored beside it. */
const installs: Pick<RouteSpec, 'uses'> = { uses: ['credentialsKey', 'packageInstallers', 'scriptPackages'] };
const newVersion: Tables = { ...edit, scriptRegistries: 'read', scriptCounters: 'write' };
const registries: Tables = { scriptRegistries: 'write' };
const remove: Tables = { ...create, scriptSubscriptions: 'read' };
/** A change an agent's tool catalog shows: the owner's (and installers') catalog stamp moves. */
const catalog: Tables = { catalogStamps: 'write' };
const history: Tables = { ...read, scriptExecutions: 'read', scriptExecutionLogs: 'read', scriptSteps: 'read' };
/** Durable runs' step results past a journal item's share are read from the script-packages bucket (`journal/`). */
const journalResults: Pick<RouteSpec, 'uses'> = { uses: ['scriptPackages'] };
const sdk = (operation: string) => `/api/sdk/v1/scripts/${operation}`;
const byId = (suffix = '') => `/api/sdk/v1/scripts/{scriptId}${suffix}`;

export const scriptRoutes = defineRoutes('scripts', {
  restCreateScript: {
    method: 'POST',
    path: '/api/sdk/v1/scripts',
    auth: 'apiKey',
    scopes: manage,
    summary: 'Create a script (draft, version 1.0.0, an execute key shown once)',
    input: input.CreateScriptInput,
    output: out.RestCreated,
    successStatus: 201,
    tables: { ...create, ...catalog },
    ...installs,
  },
  restListScripts: {
    method: 'GET',
    path: '/api/sdk/v1/scripts',
    auth: 'apiKey',
    summary: "The caller's scripts",
    input: input.RestListScriptsInput,
    output: out.RestList,
    tables: read,
  },
  restGetScript: {
    method: 'GET',
    path: byId(),
    auth: 'apiKey',
    summary: 'One script',
    input: input.ScriptIdInput,
    output: out.RestScript,
    tables: { ...read, scriptVersions: 'read' },
  },
  restUpdateScript: {
    method: 'PATCH',
    path: byId(),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Change metadata or config; new code becomes a new version',
    input: input.UpdateScriptInput,
    output: out.RestScript,
    tables: { ...newVersion, ...catalog },
    ...installs,
    uses: ['scriptFunctions', ...installs.uses!],
  },
  restDeleteScript: {
    method: 'DELETE',
    path: byId(),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Delete a script (refused with active installations or subscriptions)',
    input: input.ScriptIdInput,
    output: Message,
    tables: { ...remove, ...catalog },
    uses: ['scriptFunctions'],
  },
  restExecuteScript: {
    method: 'POST',
    path: byId('/execute'),
    auth: 'apiKey',
    summary: 'Run the script with event data',
    input: input.RestExecuteInput,
    output: out.RestExecuted,
    ...runs,
  },
  restCreateVersion: {
    method: 'POST',
    path: byId('/versions'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Add an immutable version (semver above the latest)',
    input: input.RestCreateVersionInput,
    output: out.RestVersion,
    successStatus: 201,
    tables: newVersion,
    ...installs,
  },
  restListVersions: {
    method: 'GET',
    path: byId('/versions'),
    auth: 'apiKey',
    summary: 'Versions, newest first',
    input: input.ScriptIdInput,
    output: out.RestVersions,
    tables: edit,
  },
  getScriptCode: {
    method: 'GET',
    path: byId('/versions/{version}/code'),
    auth: 'apiKey',
    summary: "A version's code and packages (the owner only)",
    description:
      'Answers the code of one version, named by its number (3) or its semantic version (1.0.2), with its declared and resolved packages. ' +
      'Only the owner reads code: a user who sees the script in the marketplace or installed it gets FORBIDDEN, anyone else NOT_FOUND.',
    input: input.ScriptCodeInput,
    output: out.ScriptCode,
    tables: { ...read, scriptVersions: 'read' },
    uses: ['scriptPackages'],
  },
  restDeployScript: {
    method: 'POST',
    path: byId('/deploy'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Deploy a version (an older one is the rollback)',
    input: input.RestDeployInput,
    output: out.RestDeployment,
    tables: { ...edit, ...catalog },
    uses: ['scriptFunctions'],
  },
  restGetExecutions: {
    method: 'GET',
    path: byId('/executions'),
    auth: 'apiKey',
    summary: "The caller's runs of the script",
    input: input.RestExecutionsInput,
    output: out.RestExecutions,
    tables: history,
    ...journalResults,
  },
  restGetExecution: {
    method: 'GET',
    path: byId('/executions/{executionId}'),
    auth: 'apiKey',
    summary: 'One run with its result and logs',
    input: input.RestExecutionInput,
    output: out.RestExecutionDetail,
    tables: history,
    ...journalResults,
  },
  restGetMetrics: {
    method: 'GET',
    path: byId('/metrics'),
    auth: 'apiKey',
    summary: 'Owner-only metrics',
    input: input.ScriptIdInput,
    output: out.RestMetrics,
    tables: { ...read, scriptCounters: 'read' },
  },
  restPublishScript: {
    method: 'POST',
    path: byId('/publish'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Publish (deploys first if needed)',
    input: input.RestPublishInput,
    output: out.RestPublished,
    tables: { ...edit, ...catalog },
    uses: ['scriptFunctions'],
  },
  restUnpublishScript: {
    method: 'POST',
    path: byId('/unpublish'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Back to draft',
    input: input.ScriptIdInput,
    output: out.RestUnpublished,
    tables: edit,
  },
  restListMarketplace: {
    method: 'GET',
    path: sdk('marketplace'),
    auth: 'apiKey',
    summary: 'Published public scripts',
    input: input.RestMarketplaceInput,
    output: out.RestMarketplace,
    tables: { scripts: 'read' },
  },
  installScript: {
    method: 'POST',
    path: byId('/install'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Install a published script',
    input: input.ScriptIdInput,
    output: out.ScriptInstallation,
    successStatus: 201,
    tables: { scripts: 'write', scriptInstallations: 'write', ...catalog },
  },
  uninstallScript: {
    method: 'DELETE',
    path: byId('/install'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Uninstall a script',
    input: input.ScriptIdInput,
    output: Message,
    tables: { scripts: 'write', scriptInstallations: 'write', ...catalog },
  },
  createScriptReview: {
    method: 'POST',
    path: byId('/reviews'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Review an installed script (one review per user)',
    input: input.ReviewInput,
    output: Review,
    successStatus: 201,
    tables: { scripts: 'write', scriptInstallations: 'read', reviews: 'write' },
  },
  listScriptReviews: {
    method: 'GET',
    path: byId('/reviews'),
    auth: 'apiKey',
    summary: 'Reviews of a script, newest first',
    input: input.ListReviewsInput,
    output: ReviewList,
    tables: { ...read, reviews: 'read' },
  },

  createScript: {
    method: 'POST',
    path: sdk('createScript'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'SDK: create a script',
    input: input.CreateScriptInput,
    output: out.SdkCreated,
    tables: { ...create, ...catalog },
    ...installs,
  },
  deleteScript: {
    method: 'POST',
    path: sdk('deleteScript'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'SDK: delete a script',
    input: input.ScriptIdInput,
    output: out.SdkDeleted,
    tables: { ...remove, ...catalog },
    uses: ['scriptFunctions'],
  },
  createVersion: {
    method: 'POST',
    path: sdk('createVersion'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'SDK: add the next version',
    input: input.SdkCreateVersionInput,
    output: out.SdkVersion,
    tables: newVersion,
    ...installs,
  },
  listVersions: {
    method: 'POST',
    path: sdk('listVersions'),
    auth: 'apiKey',
    summary: 'SDK: versions, newest first',
    input: input.ScriptIdInput,
    output: out.SdkVersions,
    tables: edit,
  },
  deployScript: {
    method: 'POST',
    path: sdk('deployScript'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'SDK: deploy a version (default latest)',
    input: input.SdkDeployInput,
    output: out.SdkDeployment,
    tables: { ...edit, ...catalog },
    uses: ['scriptFunctions'],
  },
  executeScript: {
    method: 'POST',
    path: sdk('executeScript'),
    auth: 'apiKey',
    summary: 'SDK: run the script',
    input: input.SdkExecuteInput,
    output: out.SdkExecution,
    ...runs,
  },
  getScript: {
    method: 'POST',
    path: sdk('getScript'),
    auth: 'apiKey',
    summary: 'SDK: one script',
    input: input.ScriptIdInput,
    output: out.SdkScript,
    tables: { ...read, scriptVersions: 'read' },
  },
  listScripts: {
    method: 'POST',
    path: sdk('listScripts'),
    auth: 'apiKey',
    summary: "SDK: the caller's scripts",
    input: input.SdkListScriptsInput,
    output: out.SdkList,
    tables: read,
  },
  getExecutions: {
    method: 'POST',
    path: sdk('getExecutions'),
    auth: 'apiKey',
    summary: "SDK: the caller's runs",
    input: input.SdkExecutionsInput,
    output: out.SdkExecutions,
    tables: history,
    ...journalResults,
  },
  getExecution: {
    method: 'POST',
    path: sdk('getExecution'),
    auth: 'apiKey',
    summary: 'SDK: one run with logs',
    description:
      "A durable run's steps come a page at a time: at most `stepsLimit` (default 100) and about 4 MB of results; when there are more, `stepsNextCursor` is set: pass it as `stepsCursor` for the next page.",
    input: input.GetExecutionInput,
    output: out.SdkExecution,
    tables: history,
    ...journalResults,
  },
  followExecutionLogs: {
    method: 'GET',
    path: '/api/sdk/v1/executions/{executionId}/logs',
    auth: 'apiKey',
    summary: "A run's log lines after `after`, waiting up to `wait` seconds for more (long poll)",
    description:
      'Follow a run while it runs: call with after=0, print `lines`, call again with after=`next` until `done`. Locally the lines of a running script arrive as it prints them; ' +
      "on AWS a script function reports its lines when it returns, so a running run shows them at its end. A durable run's lines of every invocation count in `after`, and a waiting run is not `done`. Only the caller's own runs.",
    input: input.FollowLogsInput,
    output: out.LiveLogs,
    tables: history,
    timeoutSeconds: 30,
  },
  publishScript: {
    method: 'POST',
    path: sdk('publishScript'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'SDK: publish',
    input: input.SdkPublishInput,
    output: out.SdkPublished,
    tables: { ...edit, ...catalog },
    uses: ['scriptFunctions'],
  },
  unpublishScript: {
    method: 'POST',
    path: sdk('unpublishScript'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'SDK: unpublish',
    input: input.ScriptIdInput,
    output: out.SdkUnpublished,
    tables: edit,
  },
  listMarketplaceScripts: {
    method: 'POST',
    path: sdk('listMarketplaceScripts'),
    auth: 'apiKey',
    summary: 'SDK: marketplace with filters and sorting',
    input: input.SdkMarketplaceInput,
    output: out.SdkMarketplace,
    tables: { scripts: 'read' },
  },
  getMetrics: {
    method: 'POST',
    path: sdk('getMetrics'),
    auth: 'apiKey',
    summary: 'SDK: owner-only metrics',
    input: input.ScriptIdInput,
    output: out.SdkMetrics,
    tables: { ...read, scriptCounters: 'read' },
  },
  getFlowScript: {
    method: 'POST',
    path: sdk('getFlowScript'),
    auth: 'apiKey',
    summary: 'SDK: the code a flow runs',
    input: input.GetFlowScriptInput,
    output: out.FlowScript,
    tables: { ...edit, flows: 'read' },
    uses: ['scriptPackages'],
  },
  modifyFlowScript: {
    method: 'POST',
    path: sdk('modifyFlowScript'),
    auth: 'apiKey',
    scopes: manage,
    summary: "SDK: change a flow's code (copy-on-write for others' scripts)",
    input: input.ModifyFlowScriptInput,
    output: out.FlowScriptModified,
    tables: { ...create, ...catalog, flows: 'write', flowOwners: 'write' },
    ...installs,
    uses: ['scriptFunctions', ...installs.uses!],
  },
  lintScript: {
    method: 'POST',
    path: sdk('lintScript'),
    auth: 'apiKey',
    summary: 'SDK: check code before create or modify',
    input: input.LintInput,
    output: out.LintResult,
    tables: { ...read, resourceInstallations: 'read', resourceVersions: 'read' },
    uses: ['pythonLint'],
  },
  setPackageRegistry: {
    method: 'POST',
    path: sdk('setPackageRegistry'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Use a private package registry for new versions (npm or pypi)',
    description:
      'Sets the registry this account installs script dependencies from: an npm registry URL, or a PEP 503 simple index URL for pip. The token is ' +
      'stored encrypted and never returned (npm gets it as `_authToken`, pip as the password of user `__token__`). Versions already created keep what they installed.',
    input: input.SetRegistryInput,
    output: out.RegistrySet,
    tables: registries,
    uses: ['credentialsKey'],
  },
  clearPackageRegistry: {
    method: 'POST',
    path: sdk('clearPackageRegistry'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Back to the public registry; the stored token is deleted',
    input: input.ClearRegistryInput,
    output: out.RegistryCleared,
    tables: registries,
  },
  listPackageRegistries: {
    method: 'POST',
    path: sdk('listPackageRegistries'),
    auth: 'apiKey',
    summary: "The account's private package registries (tokens never shown)",
    input: input.ListRegistriesInput,
    output: out.RegistryList,
    tables: { scriptRegistries: 'read' },
  },
});

/**
 * Operating runs: cancel, re-run, replay, and the ends of waits on callbacks (functions/durable/). A flow's script run
 * that had suspended settles its waiting flow run where it ends (functions/app/run-tree.ts): the flow's ring, its
 * running places, retries and pause.
 */
const operate: Tables = { ...run, scriptSteps: 'write', scriptExecutionLogs: 'read', flows: 'write', flowExecutions: 'write' };
const operations: Pick<RouteSpec, 'tables' | 'uses' | 'scopes'> = { tables: operate, uses: ['scheduler', 'eventBus', 'scriptPackages'], scopes: execute };
/**
 * An execution id may name a flow's execution: it is found through its lookup item in flowExecutions; the owner's
 * first miss before lookups existed writes the lookups of their flows' kept results and marks them in flowOwners.
 */
const flowRunById: Tables = { flows: 'read', flowOwners: 'write', flowExecutions: 'write' };
/** Replay by flowId reads the flow and its kept executions. */
const flowRunsOfFlow: Tables = { flows: 'read', flowExecutions: 'read' };
const executionPath = (suffix: string) => `/api/sdk/v1/executions/{executionId}${suffix}`;
/**
 * Reading runs of both kinds: the run table, a script run's logs and a durable run's journal (results past an item's
 * share in the script-packages bucket); an owner's first read brings the runs their flows kept before the one record
 * into it (reads the flows and their rings, marks the owner in flowOwners).
 */
const readRuns: Pick<RouteSpec, 'tables' | 'uses' | 'scopes'> = {
  tables: { scriptExecutions: 'write', scriptExecutionLogs: 'read', scriptSteps: 'read', flows: 'read', flowOwners: 'write', flowExecutions: 'read' },
  uses: ['scriptPackages'],
  scopes: [scopes.scriptsRead, scopes.scriptsManage, scopes.flowsRead, scopes.flowsManage],
};

export const runRoutes = defineRoutes('scripts', {
  listExecutions: {
    method: 'GET',
    path: '/api/sdk/v1/executions',
    auth: 'apiKey',
    summary: "The caller's runs of scripts and flows, newest first",
    description:
      'Every run the caller owns (runs of their scripts, of scripts they installed, and of their flows), newest first, filtered by kind, status (any word of the SDK, REST or flows: `success` is `completed`, `error` is `failed`), trigger, scriptId, flowId, parentExecutionId (the runs a run started) and a time range (`from`/`to` or `startDate`/`endDate`: days in UTC or ISO instants). ' +
      "A flow's script run is listed as that flow run's child (`parentExecutionId`). Runs are kept 90 days. Read one run whole with GET /api/sdk/v1/executions/{executionId}.",
    input: input.ListRunsInput,
    output: out.RunList,
    ...readRuns,
  },
  getRun: {
    method: 'GET',
    path: executionPath(''),
    auth: 'apiKey',
    summary: 'One run of the caller, of a script or of a flow: its record with steps and logs',
    description:
      "Any run the caller owns; another user's run, or an unknown id, is NOT_FOUND. A durable run's steps come a page at a time (`stepsLimit`, `stepsCursor`, as getExecution).",
    input: input.GetRunInput,
    output: out.RunRecord,
    ...readRuns,
  },
  followRunEvents: {
    method: 'GET',
    path: executionPath('/events'),
    auth: 'apiKey',
    summary: 'A run followed live: server-sent events of its new log lines, steps and status, then its end',
    description:
      'text/event-stream. Events: `log` `{index, text, invocation, step?}` for each new line, `steps` `{steps[]}` (the first 100 steps, without results) when they change, ' +
      '`status` `{status}` when it changes, and `end` `{status, error, duration, endedAt}` when the run has ended, after which the stream closes: do not reconnect. ' +
      'Every event has an id: reconnect with it as Last-Event-ID (or `lastEventId`) to get what came after it, nothing twice. A stream ends by itself after a while ' +
      '(about 5 minutes locally; on AWS at its first events or 20 s, a long poll) and announces `retry`: reconnect then. Comments (`: heartbeat`) keep a quiet stream alive. ' +
      "At most 5 open streams per API key (RATE_LIMITED past them). Another user's run, or an unknown id, is NOT_FOUND.",
    input: input.RunEventsInput,
    eventStream: true,
    ...readRuns,
    timeoutSeconds: 30,
  },
  cancelExecution: {
    method: 'POST',
    path: executionPath('/cancel'),
    auth: 'apiKey',
    summary: 'Stop a durable run that is running or waiting: its status becomes cancelled, later wake-ups and callbacks are refused',
    input: input.ExecutionIdInput,
    output: out.RunOperated,
    ...operations,
    tables: { ...operate, ...flowRunById },
  },
  rerunExecution: {
    method: 'POST',
    path: executionPath('/rerun'),
    auth: 'apiKey',
    summary: 'Run again with the same data as a new execution; with fromStep, the steps before it keep their stored results',
    input: input.RerunInput,
    output: out.RunOperated,
    successStatus: 202,
    ...operations,
    tables: { ...operate, ...flowRunById },
  },
  replayExecutions: {
    method: 'POST',
    path: '/api/sdk/v1/executions/replay',
    auth: 'apiKey',
    summary: "Re-run the caller's ended runs of a script, or executions of a flow, that match the filters, newest first, at most 100 per call",
    input: input.ReplayInput,
    output: out.Replayed,
    successStatus: 202,
    ...operations,
    // The runs start on the flows' rule.
    tables: { ...operate, ...flowRunsOfFlow },
  },
  completeCallback: {
    method: 'POST',
    path: executionPath('/callbacks/{callbackId}'),
    auth: 'apiKey',
    summary: "End a durable run's waitForCallback with {result} or {error}; the run continues",
    input: input.CompleteCallbackInput,
    output: Message,
    ...operations,
  },
  completeSignedCallback: {
    method: 'POST',
    path: '/api/callbacks/{executionId}/{callbackId}/{token}',
    auth: 'public',
    summary: 'The signed callbackUrl of a waitForCallback (no key: the single-use token is the proof); {result} or {error}',
    input: input.CompleteSignedCallbackInput,
    output: Message,
    tables: { scriptSteps: 'write' },
    uses: ['scheduler', 'eventBus', 'scriptPackages'],
  },
});

/**
 * Not an HTTP route: the bus consumer that continues durable runs (a wait's timer or timeout, a wait ended by a
 * callback, a lapsed invocation, a queued re-run). It runs scripts, so it needs what running one needs.
 */
export const durableWakeFunction = {
  handler: 'functions/app/handlers/wake-durable-run.ts',
  tables: operate,
  uses: runs.uses,
  timeoutSeconds: 310,
};

/**
 * Not an HTTP route: the function scripts deployed as Lambda functions invoke for their resource calls (lib/ lets the
 * script role invoke it and nothing else). It calls resources as the call route does, under the run's signed grant,
 * and tallies the run's calls in scriptCounters.
 */
export const scriptResourceCallFunction: FunctionSpec = {
  name: 'ScriptResourceCall',
  summary: "A Lambda-deployed script's resources[name][method](params), under its run's signed grant",
  handler: 'functions/app/scripts/handlers/script-resource-call.ts',
  // Durable runs' checkpoints come the same way: the journal, and a one-shot per wait.
  tables: { ...resourceRoutes.callResource.tables, scriptCounters: 'write', scriptSteps: 'write', ...waitKindTables },
  // An approval asked for is announced on the bus.
  uses: [...(resourceRoutes.callResource.uses ?? []), 'scriptGrantKey', 'scheduler', 'eventBus', 'scriptPackages'],
  // A resource's endpoint.timeoutSeconds goes up to 120.
  timeoutSeconds: 130,
};

/** The time limit of one package install on AWS: the installer answers before the API's 29 s, with time to store the tree. */
export const installerTimeLimitSeconds = 20;

/**
 * Not an HTTP route: the function the API functions invoke to install a node version's npm packages (the
 * `packageInstallers` capability). Its role may only read and write installed trees (PackageInstallers in lib/scripts.ts).
 */
export const npmInstallerFunction: FunctionSpec = {
  name: 'NpmInstaller',
  summary: "Installs a script version's npm packages without their install scripts and stores the tree",
  handler: 'functions/app/scripts/handlers/install-npm-packages.ts',
  timeoutSeconds: installerTimeLimitSeconds + 5,
  // npm is CPU-bound while it unpacks; Lambda's CPU share grows with memory.
  memoryMb: 1024,
};
