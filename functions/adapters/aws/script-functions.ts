// AWS adapter of the ScriptRuntime port: one Lambda function per script, the wrapper of
// layers/script-runtime as its layer, PublishVersion per deployed version, and the `live` alias moved on
// deploy and rollback. Invocations read duration and peak memory from Lambda's own REPORT line. A run (admitted
// by the runner, which holds its slots) carries its signed grant to the resource-call function, and its resource
// calls are read back from the run's tally once it returns.
import type { CreateFunctionCommandInput, LambdaClient, Runtime } from '@aws-sdk/client-lambda';
import { strToU8, zipSync } from 'fflate';
import { TooManyRequestsError, UpstreamError } from '#platform/errors.js';
import type { ExecutionError, RuntimeLabel } from '#functions/scripts/model.js';
import {
  type DeployRequest,
  type InvokeOutcome,
  type InvokeRequest,
  type PreparedCode,
  type PrintedLine,
  type RunUsage,
  type ScriptRuntime,
  configKey,
  liveAlias,
} from '#functions/scripts/runs/runtime-port.js';
import { type EnvName, envNames } from '#platform/env-names.js';
import { requiredSetting } from '#platform/settings.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';
import { type ScriptFunctionUpkeep, createScriptFunctionUpkeep } from './script-function-upkeep.js';
import { type PackageUploadOptions, dependencyLayer, packageSource, removeDependencyLayer } from './script-packages.js';

// The SDK loads on the first deploy or run: every scripts handler imports this module, most never call Lambda.
const sdk = onFirstUse(() => import('@aws-sdk/client-lambda'));

/**
 * `nodejs18` runs on the newest Node runtime Lambda offers (the one lib/platform-function.ts picks);
 * `python3.11` on python3.13 (python3.11 is Amazon Linux 2, past its end of life), the one lib/python-lint.ts picks.
 */
export const lambdaRuntimes: Record<RuntimeLabel, { runtime: Runtime; handler: string }> = {
  nodejs18: { runtime: 'nodejs24.x', handler: 'index.handler' },
  'python3.11': { runtime: 'python3.13', handler: 'platform_lambda.handler' },
};

export interface LambdaRuntimeOptions {
  client: LambdaClient;
  /** Each script's log group, own role and version pruning (script-function-upkeep.ts). */
  upkeep: ScriptFunctionUpkeep;
  functionPrefix: string;
  /** The layer built from layers/script-runtime: `nodejs/` and `python/` as Lambda mounts them under /opt. */
  layerArn: string;
  /** Deployed functions invoke it for resource calls (RESOURCE_CALL_FUNCTION in their environment). */
  resourceCallFunction: string;
  /** The signed token of a run's grant (runGrantToken of functions/scripts/runs/run-grant.ts, with the stack's key). */
  grantToken: (grant: InvokeRequest['grant'], timeoutMs: number) => Promise<string>;
  /** Ends a run's resource calls and reads what they came to. */
  tallies: { close(executionId: string): Promise<RunUsage> };
  /** How long to wait for a function to become active or finish an update. */
  waitSeconds?: number;
  /** Where packages past the direct-upload limit go, and dependency layers come from. */
  packages: PackageUploadOptions;
}

/** The function's own code: the user's script, and for Node the one-line entry into the layer's wrapper. */
export function packageZip(code: PreparedCode): Uint8Array {
  const files: Record<string, Uint8Array> = { [code.fileName]: strToU8(code.source) };
  if (code.fileName === 'script.cjs') files['index.cjs'] = strToU8("module.exports = require('/opt/nodejs/lambda.cjs');\n");
  return zipSync(files, { level: 6, mtime: new Date('2020-01-01T00:00:00Z') });
}

/** `Duration: 12.34 ms ... Max Memory Used: 70 MB` of the REPORT line in the tail of the invocation log. */
export function parseReport(logTail: string): { duration?: number; memoryUsed?: number } {
  const report = logTail.split('\n').find((line) => line.startsWith('REPORT')) ?? '';
  const duration = /\tDuration: ([\d.]+) ms/.exec(report)?.[1];
  const memory = /Max Memory Used: (\d+) MB/.exec(report)?.[1];
  return { ...(duration && { duration: Number(duration) }), ...(memory && { memoryUsed: Number(memory) }) };
}

/**
 * The lines a function's wrapper handed back: `{text, step?}`, or plain strings from a version published with an
 * older layer (a published version keeps the layer it was built with).
 */
export const printedLines = (logs: unknown): PrintedLine[] =>
  Array.isArray(logs)
    ? logs.map((line: string | Partial<PrintedLine>) =>
        typeof line === 'string' ? { text: line } : { text: String(line.text), ...(typeof line.step === 'string' && { step: line.step }) },
      )
    : [];

/** Lambda's own failures (timeout, out of memory, oversized response, crash) as execution errors. */
export function lambdaFailure(payload: { errorType?: string; errorMessage?: string }): { status: 'error' | 'timeout'; error: ExecutionError } {
  const type = payload.errorType ?? '';
  const message = payload.errorMessage ?? 'the function failed';
  if (type === 'Sandbox.Timedout' || /Task timed out/.test(message)) return { status: 'timeout', error: { code: 'TIMEOUT', message } };
  if (type === 'Runtime.OutOfMemory') return { status: 'error', error: { code: 'MEMORY_LIMIT_EXCEEDED', message } };
  if (type === 'Function.ResponseSizeTooLarge') return { status: 'error', error: { code: 'RESPONSE_TOO_LARGE', message } };
  return { status: 'error', error: { code: 'SCRIPT_CRASHED', message: `${type || 'Error'}: ${message}` } };
}

export function createLambdaScriptRuntime(options: LambdaRuntimeOptions): ScriptRuntime {
  const { client } = options;
  const waiter = { client, maxWaitTime: options.waitSeconds ?? 120, minDelay: 1, maxDelay: 5 };
  const nameOf = (scriptId: string) => `${options.functionPrefix}${scriptId}`;

  async function moveAlias(functionName: string, functionVersion: string) {
    const { CreateAliasCommand, ResourceNotFoundException, UpdateAliasCommand } = await sdk();
    try {
      await client.send(new UpdateAliasCommand({ FunctionName: functionName, Name: liveAlias, FunctionVersion: functionVersion }));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      await client.send(new CreateAliasCommand({ FunctionName: functionName, Name: liveAlias, FunctionVersion: functionVersion }));
    }
  }

  /** A role just created takes seconds to become assumable by Lambda everywhere: CreateFunction is retried meanwhile. */
  async function createFunction(input: CreateFunctionCommandInput) {
    const { CreateFunctionCommand, InvalidParameterValueException } = await sdk();
    const deadline = Date.now() + (options.waitSeconds ?? 120) * 1000;
    for (;;) {
      try {
        return await client.send(new CreateFunctionCommand(input));
      } catch (error) {
        const roleNotReady = error instanceof InvalidParameterValueException && /cannot be assumed/.test(error.message);
        if (!roleNotReady || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  }

  async function exists(functionName: string) {
    const { GetFunctionConfigurationCommand, ResourceNotFoundException } = await sdk();
    try {
      return await client.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }

  async function upload(request: DeployRequest, functionName: string): Promise<string> {
    const { PublishVersionCommand, UpdateFunctionCodeCommand, UpdateFunctionConfigurationCommand, waitUntilFunctionActiveV2, waitUntilFunctionUpdatedV2 } =
      await sdk();
    const settings = {
      Runtime: lambdaRuntimes[request.runtime].runtime,
      Handler: lambdaRuntimes[request.runtime].handler,
      Role: await options.upkeep.prepare(functionName),
      Timeout: request.timeoutSeconds,
      MemorySize: request.memoryMb,
      Layers: [
        options.layerArn,
        ...(request.dependencies
          ? [await dependencyLayer(client, request.dependencies, lambdaRuntimes[request.runtime].runtime, options.functionPrefix, options.packages)]
          : []),
      ],
      // x86_64: the GB-second price the platform's cost figures use (functions/scripts/runs/cost.ts).
      Architectures: ['x86_64' as const],
      Description: `script ${request.scriptId}`,
      Environment: { Variables: { RESOURCE_CALL_FUNCTION: options.resourceCallFunction } },
    };
    const code = await packageSource(
      packageZip(await request.code()),
      `functions/${request.scriptId}/${request.version}-${request.codeHash.slice(0, 16)}.zip`,
      options.packages,
    );
    if (await exists(functionName)) {
      const { Architectures: _fixed, ...changeable } = settings;
      await client.send(new UpdateFunctionCodeCommand({ FunctionName: functionName, ...code }));
      await waitUntilFunctionUpdatedV2(waiter, { FunctionName: functionName });
      await client.send(new UpdateFunctionConfigurationCommand({ FunctionName: functionName, ...changeable }));
      await waitUntilFunctionUpdatedV2(waiter, { FunctionName: functionName });
    } else {
      await createFunction({ FunctionName: functionName, ...settings, Code: code, Publish: false });
      await waitUntilFunctionActiveV2(waiter, { FunctionName: functionName });
    }
    const published = await client.send(
      new PublishVersionCommand({ FunctionName: functionName, Description: `version ${request.version} (${request.codeHash.slice(0, 12)})` }),
    );
    return published.Version!;
  }

  async function invokeFunction(request: InvokeRequest, token: string): Promise<InvokeOutcome> {
    const { InvokeCommand, TooManyRequestsException } = await sdk();
    let response;
    try {
      response = await client.send(
        new InvokeCommand({
          FunctionName: nameOf(request.scriptId),
          Qualifier: request.qualifier,
          Payload: strToU8(JSON.stringify({ event: request.event, context: request.context, token })),
          LogType: 'Tail',
        }),
      );
    } catch (error) {
      // The account's concurrency, not the script's (the runner's slots count that): Lambda throttled the invocation.
      if (error instanceof TooManyRequestsException)
        throw new TooManyRequestsError('CONCURRENCY_LIMIT', `script ${request.scriptId} runs too many executions at once`, 1, { scriptId: request.scriptId });
      throw new UpstreamError(`Lambda refused the invocation: ${(error as Error).message}`, { scriptId: request.scriptId });
    }
    const measured = parseReport(Buffer.from(response.LogResult ?? '', 'base64').toString('utf8'));
    const payload = JSON.parse(Buffer.from(response.Payload ?? strToU8('null')).toString('utf8') || 'null');
    const common = { duration: measured.duration ?? payload?.duration ?? 0, memoryUsed: measured.memoryUsed ?? 0 };
    if (response.FunctionError) return { ...lambdaFailure(payload ?? {}), outputJson: 'null', logs: [], ...common };
    return {
      status: payload.status,
      ...(payload.noOp && { noOp: true }),
      outputJson: payload.output,
      error: payload.error ?? null,
      logs: printedLines(payload.logs),
      ...common,
    };
  }

  return {
    async deploy(request) {
      const functionName = nameOf(request.scriptId);
      const kept =
        request.existing && (await options.upkeep.hasVersion(functionName, request.existing.functionVersion)) ? request.existing.functionVersion : undefined;
      const functionVersion = kept ?? (await upload(request, functionName));
      if (request.activate) await moveAlias(functionName, functionVersion);
      await options.upkeep.prune(functionName);
      const current = await exists(functionName);
      return {
        functionName,
        functionArn: current!.FunctionArn!,
        artifact: { functionVersion, configKey: configKey(request.timeoutSeconds, request.memoryMb) },
      };
    },

    async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
      const token = await options.grantToken(request.grant, request.timeoutMs);
      const outcome = await invokeFunction(request, token);
      return { ...outcome, resourceUsage: await options.tallies.close(request.context.executionId) };
    },

    async remove(scriptId) {
      const { DeleteFunctionCommand, ResourceNotFoundException } = await sdk();
      try {
        await client.send(new DeleteFunctionCommand({ FunctionName: nameOf(scriptId) }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
      }
      await options.upkeep.remove(nameOf(scriptId));
    },

    removeDependencyTree: (lockHash) => removeDependencyLayer(client, lockHash, options.functionPrefix, options.packages),
  };
}

let runtime: ScriptRuntime | undefined;

/** What the stack gives functions that `use` scriptFunctions (lib/grants.ts), from the composition. */
export interface ScriptFunctionResources {
  region: string;
  functionPrefix: string;
  roleBoundaryArn: string | undefined;
  resourceCallFunctionArn: string | undefined;
  runtimeLayerArn: string | undefined;
  resourceCallFunction: string | undefined;
  packagesBucket: string | undefined;
  grantToken: LambdaRuntimeOptions['grantToken'];
  /** Made on the runtime's first call, with its SDK clients. */
  tallies: () => LambdaRuntimeOptions['tallies'];
}

const required = (value: string | undefined, name: EnvName) => requiredSetting(value, name, 'scriptFunctions');

/** Checks the resources at once, as before; the SDK clients are made on the runtime's first call. */
export function lambdaScriptRuntime(resources: ScriptFunctionResources): ScriptRuntime {
  if (runtime) return runtime;
  const boundaryArn = required(resources.roleBoundaryArn, envNames.scriptRoleBoundaryArn);
  const resourceCallFunctionArn = required(resources.resourceCallFunctionArn, envNames.resourceCallFunctionArn);
  const layerArn = required(resources.runtimeLayerArn, envNames.scriptRuntimeLayerArn);
  const resourceCallFunction = required(resources.resourceCallFunction, envNames.resourceCallFunction);
  const made = onFirstUse(async () => {
    const [{ LambdaClient }, { CloudWatchLogsClient }, { IAMClient }, { S3Client }] = await Promise.all([
      sdk(),
      import('@aws-sdk/client-cloudwatch-logs'),
      import('@aws-sdk/client-iam'),
      import('@aws-sdk/client-s3'),
    ]);
    return createLambdaScriptRuntime({
      client: traced(new LambdaClient({})),
      upkeep: createScriptFunctionUpkeep({
        lambda: traced(new LambdaClient({})),
        logs: traced(new CloudWatchLogsClient({})),
        iam: traced(new IAMClient({})),
        retentionDays: 30,
        keepVersions: 5,
        region: resources.region,
        boundaryArn,
        resourceCallFunctionArn,
      }),
      functionPrefix: resources.functionPrefix,
      layerArn,
      resourceCallFunction,
      grantToken: resources.grantToken,
      tallies: resources.tallies(),
      packages: { s3: traced(new S3Client({})), bucket: () => required(resources.packagesBucket, envNames.scriptPackagesBucket) },
    });
  });
  runtime = {
    deploy: async (request) => (await made()).deploy(request),
    invoke: async (request) => (await made()).invoke(request),
    remove: async (scriptId) => (await made()).remove(scriptId),
    removeDependencyTree: async (lockHash) => (await made()).removeDependencyTree(lockHash),
  };
  return runtime;
}
