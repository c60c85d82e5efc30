// The one place for settings every platform Lambda shares; routes only vary entry, memory, timeout and grants.
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  RuntimeFamily,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FunctionSpec } from '../functions/platform/route.js';
import { envNames } from '../functions/platform/env-names.js';
import { platformAsset } from './bundles.js';

/** The newest `nodejsNN.x` this aws-cdk-lib knows, so upgrading the library upgrades every function. */
export const latestNodeRuntime: Runtime = Runtime.ALL.filter((runtime) => runtime.family === RuntimeFamily.NODEJS && /^nodejs\d+\.x$/.test(runtime.name))
  .sort((a, b) => Number.parseInt(a.name.slice(6), 10) - Number.parseInt(b.name.slice(6), 10))
  .at(-1)!;

export const defaultMemoryMb = 256;
/** API Gateway HTTP APIs give up on an integration after 30 s. */
export const defaultTimeoutSeconds = 29;

export interface PlatformFunctionProps {
  /** Handler module relative to the repository root, exporting `handler`. */
  entry: string;
  description?: string;
  memoryMb?: number;
  timeoutSeconds?: number;
  environment?: Record<string, string>;
  /** Concurrency set aside for this function, which is also the most it runs at once. */
  reservedConcurrency?: number;
}

/** What a stack whose bundling is skipped (infra tests) deploys instead of a bundle: nothing is read from it. */
const unbundled = Code.fromInline('export const handler = () => undefined;');

export class PlatformFunction extends LambdaFunction {
  /** A function declared outside the route table (bus consumers, the scripts' resource-call function). */
  static fromSpec(scope: Construct, spec: FunctionSpec, environment: Record<string, string>): PlatformFunction {
    return new PlatformFunction(scope, spec.name, {
      entry: spec.handler,
      description: `${spec.name}: ${spec.summary}`,
      memoryMb: spec.memoryMb,
      timeoutSeconds: spec.timeoutSeconds,
      environment,
    });
  }

  constructor(scope: Construct, id: string, props: PlatformFunctionProps) {
    // Our own log group (not Lambda's implicit one) so retention is set and the stack removes it.
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    // Own role instead of AWSLambdaBasicExecutionRole: it may write to its own log group only.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    super(scope, id, {
      // One esbuild pass over every handler (lib/bundles.ts), skipped where the CLI or a test skips bundling.
      code: Stack.of(scope).bundlingRequired ? Code.fromAsset(platformAsset(props.entry)) : unbundled,
      handler: 'index.handler',
      description: props.description,
      runtime: latestNodeRuntime,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? defaultMemoryMb,
      timeout: Duration.seconds(props.timeoutSeconds ?? defaultTimeoutSeconds),
      reservedConcurrentExecutions: props.reservedConcurrency,
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        [envNames.serviceName]: 'platform',
        ...props.environment,
      },
    });
  }
}
