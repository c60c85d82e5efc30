// The real Lambda entries of the script runtime layer (nodejs/lambda.cjs, python/platform_lambda.py) in child
// processes, their SDKs pointed (AWS_ENDPOINT_URL_LAMBDA) at a local Invoke API that hands each call to the real
// resource-call handler: a script gets its resource's data, and a refusal reaches it exactly as in a local worker.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedLines } from '../../functions/adapters/aws/script-functions.js';
import { type LocalScriptRuntime, createLocalScriptRuntime } from '../../functions/adapters/local/script-pool.js';
import { scriptGrantKey } from '../../functions/adapters/script-grant-key.js';
import { callService } from '../../functions/app/resources/wiring.js';
import { handler as resourceCallHandler } from '../../functions/app/scripts/handlers/script-resource-call.js';
import type { RuntimeLabel } from '../../functions/scripts/model.js';
import { prepareCode } from '../../functions/scripts/runs/prepare.js';
import { pythonExecutable } from '../../functions/scripts/authoring/python.js';
import { memoryTally, resourceGate } from '../../functions/scripts/runs/resource-gate.js';
import { type RunGrant, signGrant } from '../../functions/scripts/runs/run-grant.js';
import { createRunTallies } from '../../functions/scripts/runs/run-tallies.js';
import { type LambdaInvokeApi, startLambdaInvokeApi } from '../support/lambda-invoke-api.js';
import { type Upstream, startUpstream } from '../support/resources.js';
import { type CallableResource, givenCallableResource, runGrant, useLocalServices } from '../support/script-resource-calls.js';

const layer = fileURLToPath(new URL('../../layers/script-runtime/', import.meta.url));
const resourceCallFunction = 'platform-ScriptResourceCall';
let upstream: Upstream;
let lambdaApi: LambdaInvokeApi;
let resource: CallableResource;
let pool: LocalScriptRuntime;

beforeAll(async () => {
  useLocalServices();
  [upstream, lambdaApi] = await Promise.all([startUpstream(), startLambdaInvokeApi({ [resourceCallFunction]: resourceCallHandler })]);
  resource = await givenCallableResource(upstream.baseUrl);
  pool = createLocalScriptRuntime({
    python: 'python3',
    stageDir: mkdtempSync(join(tmpdir(), 'platform-stage-')),
    functionPrefix: 'platform-script-',
    idleMs: 60_000,
    maxWorkers: 4,
  });
});
afterAll(async () => {
  await pool.stop();
  await Promise.all([upstream.close(), lambdaApi.close()]);
});

interface Outcome {
  status: string;
  output: string;
  error: unknown;
  logs?: unknown;
}

const nodeDriver = `require(process.env.LAYER + 'nodejs/lambda.cjs').handler(JSON.parse(process.env.PAYLOAD))
  .then((outcome) => require('node:fs').writeFileSync(process.env.OUT, JSON.stringify(outcome)));`;
const pythonDriver = `import json, os, platform_lambda
open(os.environ['OUT'], 'w').write(json.dumps(platform_lambda.handler(json.loads(os.environ['PAYLOAD']), None)))`;

/** One invocation of a fresh Lambda container: LAMBDA_TASK_ROOT holds the script as a deployed function's zip does. */
async function runInLambdaWrapper(runtime: RuntimeLabel, code: string, payload: unknown, functionName = resourceCallFunction): Promise<Outcome> {
  const taskRoot = mkdtempSync(join(tmpdir(), 'platform-task-'));
  const prepared = await prepareCode(runtime, code, 'python3');
  writeFileSync(join(taskRoot, prepared.fileName), prepared.source);
  const out = join(taskRoot, 'outcome.json');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    LAMBDA_TASK_ROOT: taskRoot,
    LAYER: layer,
    OUT: out,
    PAYLOAD: JSON.stringify(payload),
    PYTHONPATH: join(layer, 'python'),
    PYTHONDONTWRITEBYTECODE: '1',
    RESOURCE_CALL_FUNCTION: functionName,
    AWS_ENDPOINT_URL_LAMBDA: lambdaApi.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const [command, args] = runtime === 'nodejs18' ? [process.execPath, ['-e', nodeDriver]] : [(await pythonExecutable('python3'))!, ['-c', pythonDriver]];
  const stderr: Buffer[] = [];
  const status = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (status !== 0) throw new Error(`the ${runtime} wrapper exited ${status}: ${Buffer.concat(stderr).toString().slice(-1000)}`);
  return JSON.parse(readFileSync(out, 'utf8')) as Outcome;
}

/** The same script in a local worker, its calls going through the runner's in-process rules. */
async function runInLocalWorker(runtime: RuntimeLabel, code: string, grant: RunGrant): Promise<Outcome> {
  const prepared = await prepareCode(runtime, code, 'python3');
  const started = performance.now();
  const outcome = await pool.invoke({
    scriptId: grant.scriptId,
    version: 1,
    runtime,
    codeHash: `${grant.scriptId}hash`,
    qualifier: 'live',
    code: async () => prepared,
    memoryMb: 128,
    timeoutMs: 20_000,
    event: eventFor(),
    context: contextFor(grant),
    grant,
    callResource: resourceGate({ grant, tally: memoryTally(), caller: callService(), elapsedMs: () => performance.now() - started }),
  });
  return { status: outcome.status, output: outcome.outputJson, error: outcome.error };
}

const eventFor = () => ({ data: { name: resource.name }, trigger: { type: 'manual', source: null, event: null } });
const contextFor = (grant: RunGrant) => ({ scriptId: grant.scriptId, executionId: grant.executionId, userId: grant.userId, customization: {} });
const payloadFor = async (grant: RunGrant, key?: Uint8Array) => ({
  event: eventFor(),
  context: contextFor(grant),
  token: signGrant(grant, Date.now() + 60_000, key ?? (await scriptGrantKey())),
});

const scripts: Record<RuntimeLabel, string> = {
  nodejs18: `export async function handler(event) {
  const forecast = await resources[event.data.name].getForecast({ city: 'Oslo' });
  let refused = null;
  try { await resources.bank.transfer({ amount: 1 }); } catch (error) { refused = { code: error.code, message: error.message, isError: error instanceof Error }; }
  return { forecast, refused };
}`,
  'python3.11': `def handler(event, context):
    forecast = resources[event['data']['name']].getForecast({'city': 'Oslo'})
    refused = None
    try:
        resources.bank.transfer({'amount': 1})
    except Exception as error:
        refused = {'code': error.code, 'message': str(error), 'isError': isinstance(error, Exception)}
    return {'forecast': forecast, 'refused': refused}
`,
};

const callFirst = (runtime: RuntimeLabel) =>
  runtime === 'nodejs18'
    ? 'export async function handler(event) { try { return await resources[event.data.name].getForecast({ city: "Oslo" }); } catch (error) { return { code: error.code, message: error.message }; } }'
    : "def handler(event, context):\n    try:\n        return resources[event['data']['name']].getForecast({'city': 'Oslo'})\n    except Exception as error:\n        return {'code': error.code, 'message': str(error)}\n";

describe.each(['nodejs18', 'python3.11'] as const)('scripts: the %s Lambda entry calls resources', (runtime) => {
  it("gets the resource's data through the resource-call function, and a refused call's code and message as a local worker gives them", async () => {
    // Prepare
    const grant = runGrant(resource.userId, { allowedResources: [resource.name] });
    const localGrant = runGrant(resource.userId, { allowedResources: [resource.name] });
    const invokedBefore = lambdaApi.invoked.length;
    // Act
    const lambda = await runInLambdaWrapper(runtime, scripts[runtime], await payloadFor(grant));
    const local = await runInLocalWorker(runtime, scripts[runtime], localGrant);
    const usage = await createRunTallies().close(grant.executionId);
    // Assess
    expect(lambda, JSON.stringify(lambda)).toMatchObject({ status: 'success' });
    const output = JSON.parse(lambda.output);
    expect(output.forecast).toEqual({ ok: true, path: '/forecast/Oslo' });
    expect(output.refused).toEqual({ code: 'RESOURCE_NOT_ALLOWED', message: "resource bank is not in this script's config.allowedResources", isError: true });
    expect(output).toEqual(JSON.parse(local.output));
    expect(upstream.received.at(-1)!.headers['x-api-key']).toBe(resource.apiKey);
    expect(lambdaApi.invoked.slice(invokedBefore)).toEqual([resourceCallFunction, resourceCallFunction]);
    expect(usage).toEqual({ calls: 1, cost: 0.01, stoppedForCost: false });
  });

  it('gets UNAUTHORIZED for a grant the platform did not sign, and RESOURCE_CALL_FAILED when the function cannot be reached', async () => {
    // Prepare
    const grant = runGrant(resource.userId, { allowedResources: [resource.name] });
    const calls = upstream.received.length;
    // Act
    const forged = await runInLambdaWrapper(runtime, callFirst(runtime), await payloadFor(grant, Buffer.alloc(32, 7)));
    const unreachable = await runInLambdaWrapper(runtime, callFirst(runtime), await payloadFor(grant), 'platform-no-such-function');
    // Assess
    expect(JSON.parse(forged.output)).toEqual({ code: 'UNAUTHORIZED', message: 'the run grant is not signed by the platform' });
    expect(JSON.parse(unreachable.output)).toMatchObject({ code: 'RESOURCE_CALL_FAILED', message: expect.stringContaining('resources.') });
    expect(upstream.received.length).toBe(calls);
  });
});

const printsInAStep: Record<RuntimeLabel, string> = {
  nodejs18: `export async function handler(event, context) {
  console.log('outside');
  try { await context.step('charge', async () => { console.log('inside'); return 1; }); } catch {}
  return 'ok';
}`,
  'python3.11': `def handler(event, context):
    print('outside')
    def charge():
        print('inside')
        return 1
    try:
        context.step('charge', charge)
    except Exception:
        pass
    return 'ok'
`,
};

describe.each(['nodejs18', 'python3.11'] as const)('scripts: the %s Lambda entry hands its lines back', (runtime) => {
  it('with the durable step each was printed in, as the platform reads them', async () => {
    // Prepare
    const grant = runGrant(resource.userId, { allowedResources: [resource.name] });
    const payload = await payloadFor(grant);
    // Act
    const lambda = await runInLambdaWrapper(runtime, printsInAStep[runtime], {
      ...payload,
      context: { ...payload.context, durable: { journal: { entries: {} } } },
    });
    // Assess
    expect(printedLines(lambda.logs)).toEqual([{ text: 'outside' }, { text: 'inside', step: 'charge' }]);
    expect(printedLines(['from an older layer'])).toEqual([{ text: 'from an older layer' }]);
  });
});
