// The interface's eight flow operations at POST /api/sdk/v1/flows/<operation>, plus runFlow, and the
// flows' bus consumer that lib/ puts behind the platform bus.
import { scriptRoutes } from '#functions/scripts/routes.js';
import { type TableAccess, defineRoutes } from '#platform/route.js';
import { RunningRun } from '#platform/schemas.js';
import type { TableName } from '#platform/table-definition.js';
import {
  AssignmentInput,
  CreateEventFlowInput,
  CreateTimeFlowInput,
  DeletedFlow,
  ExecutionResultOutput,
  FlowOutput,
  PausedFlow,
  ResumedFlow,
  SearchFlowsInput,
  SearchFlowsOutput,
  UpdateFlowInput,
  UpdatedFlow,
} from './schemas.js';

type Tables = Partial<Record<TableName, TableAccess>>;
const sdk = (operation: string) => `/api/sdk/v1/flows/${operation}`;
/** Changing flows takes a full key (`*`) or `flows:manage`. */
const manage = ['flows:manage'];
/** Who may run which script (FlowScriptRunner.canRun). */
const scriptLookup: Tables = { scripts: 'read', scriptInstallations: 'read' };
const create: Tables = { ...scriptLookup, flows: 'write', flowOwners: 'write' };
/**
 * An execution runs scripts and resource methods as the owner (the scripts area's run), and records itself; the
 * failure policy's pause bumps the owner's revision in flowOwners, as every change of a flow does.
 */
const execution: Tables = { ...scriptRoutes.executeScript.tables, flows: 'write', flowOwners: 'write', flowExecutions: 'write', rateLimits: 'write' };
const executionUses = ['scriptFunctions', 'credentialsKey', 'llm'] as const;

export const flowRoutes = defineRoutes('flows', {
  createTimeFlow: {
    method: 'POST',
    path: sdk('createTimeFlow'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'A flow that runs a script on a five-field cron schedule (UTC)',
    input: CreateTimeFlowInput,
    output: FlowOutput,
    tables: { ...create, catalogStamps: 'write' },
    uses: ['scheduler'],
  },
  createEventFlow: {
    method: 'POST',
    path: sdk('createEventFlow'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'A flow that runs on events of a type matching a condition tree (llm or direct)',
    input: CreateEventFlowInput,
    output: FlowOutput,
    tables: { ...create, catalogStamps: 'write' },
  },
  getFlow: {
    method: 'POST',
    path: sdk('getFlow'),
    auth: 'apiKey',
    summary: 'One flow with its last 100 execution results',
    input: AssignmentInput,
    output: FlowOutput,
    tables: { flows: 'read', flowExecutions: 'read' },
  },
  updateFlow: {
    method: 'POST',
    path: sdk('updateFlow'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Change title, description, schedule, prompt, recommended tools or conditions',
    input: UpdateFlowInput,
    output: UpdatedFlow,
    tables: { flows: 'write', flowOwners: 'write', catalogStamps: 'write' },
    uses: ['scheduler'],
  },
  pauseFlow: {
    method: 'POST',
    path: sdk('pauseFlow'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Pause an active flow (its schedule is disabled)',
    input: AssignmentInput,
    output: PausedFlow,
    tables: { flows: 'write', flowOwners: 'write' },
    uses: ['scheduler'],
  },
  resumeFlow: {
    method: 'POST',
    path: sdk('resumeFlow'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Resume a paused flow',
    input: AssignmentInput,
    output: ResumedFlow,
    tables: { flows: 'write', flowOwners: 'write' },
    uses: ['scheduler'],
  },
  deleteFlow: {
    method: 'POST',
    path: sdk('deleteFlow'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Delete a flow, its schedule, pending retries and execution history',
    input: AssignmentInput,
    output: DeletedFlow,
    tables: { flows: 'write', flowOwners: 'write', flowExecutions: 'write', catalogStamps: 'write' },
    uses: ['scheduler'],
  },
  searchFlows: {
    method: 'POST',
    path: sdk('searchFlows'),
    auth: 'apiKey',
    summary: "The caller's flows: variant B with query, trigger or scope (data array and meta), else variant A ({count, flows})",
    input: SearchFlowsInput,
    output: SearchFlowsOutput,
    tables: { flows: 'read', flowOwners: 'read' },
  },
  runFlow: {
    method: 'POST',
    path: sdk('runFlow'),
    auth: 'apiKey',
    scopes: manage,
    summary: 'Run an active or paused flow now and answer its execution result',
    description:
      'Runs the flow now. The answer is its execution result when the run ends within the run wait (about 25 s); otherwise 202 with `executionId` and status `running` (or `waiting` at once, when the durable script of a direct flow suspends at a wait): the run goes on and its result appears in getFlow `executionResults` and in GET /api/sdk/v1/executions.',
    // The run goes on past the answer in this function invoked again asynchronously (selfInvoke); the job is claimed once in eventDeliveries.
    input: AssignmentInput,
    output: ExecutionResultOutput,
    idempotency: 'caller',
    tables: { ...execution, eventDeliveries: 'write' },
    uses: [...executionUses, 'selfInvoke'],
    timeoutSeconds: 310,
    accepted: {
      output: RunningRun,
      description: 'the run goes on past the run wait (about 25 s): its result appears in getFlow `executionResults` and in GET /api/sdk/v1/executions',
    },
  },
});

/**
 * What the trigger pipeline's event-flow kind needs of the bus consumer that runs it (functions/consumers.ts): what an
 * execution needs, the delivery ledger, and the scheduler and bus for the failure policy.
 */
export const flowTargetNeeds = {
  tables: { ...execution, eventDeliveries: 'write' } as Tables,
  uses: [...executionUses, 'scheduler', 'eventBus'] as const,
};
