// The one reader of the environment. The kernel's request-path values below (`settings`) are read on each access: the
// kernel imports nothing above it, so it cannot take them from the platform object, and the local runtime and tests set
// them after modules load. The kernel's values that configure compositions (`kernelSettingsSchema`) and the areas'
// zod schemas (`functions/<area>/settings.ts`) are parsed once per start by the composition root with `parseEnv`. The mode itself is `process.env.PLATFORM_MODE`, which every Lambda bundle replaces with "aws"
// (lib/bundles.ts), so local-only branches written against it drop out of the bundle.
import * as z from 'zod';
import { type EnvName, envNames, tableEnvVar } from './env-names.js';

export type PlatformMode = 'aws' | 'local';

export const readEnv = (name: EnvName): string | undefined => process.env[name];

/** A value the stack gives with a capability (`name`'s variable); `capability` names it in the error when it is missing. */
export function requiredSetting(value: string | undefined, name: EnvName, capability: string): string {
  if (!value) throw new Error(`${name} is not set: the stack gives it to functions that use ${capability}`);
  return value;
}

export const requiredEnv = (name: EnvName, capability: string): string => requiredSetting(readEnv(name), name, capability);

const numberOr = (name: EnvName, fallback: number) => Number(readEnv(name) ?? fallback);

export const settings = {
  get mode(): PlatformMode {
    return process.env.PLATFORM_MODE === 'local' ? 'local' : 'aws';
  },
  get region(): string {
    return readEnv(envNames.region) ?? 'us-east-1';
  },
  get dynamoEndpoint(): string | undefined {
    return readEnv(envNames.dynamoEndpoint);
  },
  get tablePrefix(): string {
    return readEnv(envNames.tablePrefix) ?? 'platform-';
  },
  get dataDir(): string {
    return readEnv(envNames.dataDir) ?? '.data';
  },
  get version(): string {
    return readEnv(envNames.version) ?? '0.1.0';
  },
  /** Requests per minute per API key. */
  get requestsPerMinute(): number {
    return numberOr(envNames.requestsPerMinute, 1000);
  },
  /** Requests per minute per user, over all of the user's keys (docs/security.md). */
  get userRequestsPerMinute(): number {
    return numberOr(envNames.userRequestsPerMinute, 2000);
  },
  /** How long a script execution or runFlow answers synchronously before it answers 202 and runs on (API Gateway stops at 30 s). */
  get runWaitMs(): number {
    return numberOr(envNames.runWaitSeconds, 25) * 1000;
  },
  get publicBaseUrl(): string | undefined {
    return readEnv(envNames.publicBaseUrl);
  },
  /** The console's address on AWS (the stack sets it where runs are written); it forwards /api/* and /mcp. */
  get consoleBaseUrl(): string | undefined {
    return readEnv(envNames.callbackBaseUrl);
  },
  get adminApiKey(): string | undefined {
    return readEnv(envNames.adminApiKey);
  },
  get adminKeySecretArn(): string | undefined {
    return readEnv(envNames.adminKeySecretArn);
  },
  /** `ALLOW_PRIVATE_UPSTREAMS` as set ("true", "false" or unset). */
  get allowPrivateUpstreams(): string | undefined {
    return readEnv(envNames.allowPrivateUpstreams);
  },
  /** A table's physical name as the stack gives it (`TABLE_API_KEYS`); unset locally. */
  grantedTable(name: string): string | undefined {
    return readEnv(tableEnvVar(name));
  },
  /** The address the local platform binds (`HOST`). */
  get host(): string | undefined {
    return readEnv(envNames.host);
  },
  /** Inside a Lambda function's runtime, the only place Powertools traces (it reads the same variable). */
  get inLambda(): boolean {
    return Boolean(readEnv(envNames.lambdaExecutionEnv));
  },
  get serviceName(): string {
    return readEnv(envNames.serviceName) ?? 'platform';
  },
  get scriptFunctionPrefix(): string {
    return readEnv(envNames.scriptFunctionPrefix) ?? 'platform-script-';
  },
  /** Endpoints the platform itself is configured with (DynamoDB, Solana RPC, AWS endpoint overrides): never an upstream. */
  get platformEndpoints(): string[] {
    const own = (name: string) => name === envNames.dynamoEndpoint || name === envNames.solanaRpcUrl || name.startsWith('AWS_ENDPOINT_URL');
    return Object.entries(process.env).flatMap(([name, value]) => (value && own(name) ? [value] : []));
  },
};

/**
 * Where durable runs' signed callback URLs and approval links point (runs are not requests: they cannot take it from
 * one). On AWS the stack sets it (the console's address); a link there without it would point at no one's machine.
 */
function callbackBaseUrl(mode: PlatformMode, configured: string | undefined): string {
  if (configured) return configured;
  if (mode === 'aws') throw new Error(`${envNames.callbackBaseUrl} is not set: the stack gives it to functions that write the durable-run journal`);
  return 'http://127.0.0.1:3000';
}

/** A numeric variable: `fallback` when unset; anything but a finite number fails the parse. */
export const envNumber = (fallback: number) => z.coerce.number().default(fallback);

/** Each area's settings from the environment; one error names every bad variable with its value. */
export function parseEnv<S extends Record<string, z.ZodType>>(schemas: S, env: Record<string, string | undefined>): { [K in keyof S]: z.output<S[K]> } {
  const problems: string[] = [];
  const parsed = Object.entries(schemas).map(([area, schema]) => {
    const result = schema.safeParse(env);
    for (const issue of result.error?.issues ?? []) {
      const name = String(issue.path[0]);
      problems.push(`${name}=${JSON.stringify(env[name])} (${issue.message})`);
    }
    return [area, result.data];
  });
  if (problems.length) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return Object.fromEntries(parsed);
}

/**
 * The kernel's values that configure the areas' compositions, parsed with the areas' settings once per platform start.
 * Resource names the stack gives only to the functions granted the resource stay optional here: the adapter that
 * needs one refuses to work without it, at its use, naming the variable.
 */
export const kernelSettingsSchema = z
  .object({
    [envNames.platformMode]: z.string().optional(),
    [envNames.runWaitSeconds]: envNumber(25),
    [envNames.callbackBaseUrl]: z.string().optional(),
    [envNames.publicBaseUrl]: z.string().optional(),
    [envNames.dataDir]: z.string().default('.data'),
    [envNames.scriptFunctionPrefix]: z.string().default('platform-script-'),
    [envNames.region]: z.string().default('us-east-1'),
    [envNames.eventBusName]: z.string().optional(),
    [envNames.scheduleGroupName]: z.string().optional(),
    [envNames.schedulerRoleArn]: z.string().optional(),
    [envNames.credentialsKeyArn]: z.string().optional(),
    [envNames.lambdaFunctionName]: z.string().optional(),
  })
  .transform((env) => {
    const mode: PlatformMode = env[envNames.platformMode] === 'local' ? 'local' : 'aws';
    const configuredCallback = env[envNames.callbackBaseUrl] ?? env[envNames.publicBaseUrl];
    return {
      mode,
      /** How long a script execution or runFlow answers synchronously before it answers 202 and runs on. */
      runWaitMs: env[envNames.runWaitSeconds] * 1000,
      /** Where durable runs' signed callback URLs and approval links point; read on use, since only the journal's writers need it. */
      callbackBaseUrl: () => callbackBaseUrl(mode, configuredCallback),
      dataDir: env[envNames.dataDir],
      scriptFunctionPrefix: env[envNames.scriptFunctionPrefix],
      region: env[envNames.region],
      eventBusName: env[envNames.eventBusName],
      /** EventBridge Scheduler's group of the platform's schedules and the role they put events on the bus with. */
      scheduler: { groupName: env[envNames.scheduleGroupName], roleArn: env[envNames.schedulerRoleArn] },
      credentialsKeyArn: env[envNames.credentialsKeyArn],
      /** This Lambda function's own name: background runs invoke it. */
      functionName: env[envNames.lambdaFunctionName],
    };
  });

export type KernelSettings = z.output<typeof kernelSettingsSchema>;
