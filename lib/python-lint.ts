// The Python function lintScript invokes on AWS (the `pythonLint` capability): Python's own `ast` reads the code,
// as python3 does locally, through the same functions/scripts/authoring/lint/python_facts.py.
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The Python runtime of the `python3.11` script label and of this function: supported, on Amazon Linux 2023. */
export const pythonLambdaRuntime = Runtime.PYTHON_3_13;

export interface PythonFunctionProps {
  description: string;
  /** The handler's module, relative to the repository root; it alone is the function's code. */
  module: string;
  memoryMb: number;
  timeoutSeconds: number;
  environment?: Record<string, string>;
  reservedConcurrency?: number;
}

/** A Python function of one module in `scope`, with its own log group and a role that may only write there. */
export function pythonFunction(scope: Construct, props: PythonFunctionProps): LambdaFunction {
  const logGroup = new LogGroup(scope, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
  const role = new Role(scope, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  const file = basename(props.module);
  return new LambdaFunction(scope, 'Function', {
    description: props.description,
    runtime: pythonLambdaRuntime,
    architecture: Architecture.ARM_64,
    code: Code.fromAsset(fileURLToPath(new URL(`../${dirname(props.module)}`, import.meta.url)), { exclude: ['*', `!${file}`] }),
    handler: `${file.replace(/\.py$/, '')}.handler`,
    memorySize: props.memoryMb,
    timeout: Duration.seconds(props.timeoutSeconds),
    reservedConcurrentExecutions: props.reservedConcurrency,
    environment: props.environment,
    logGroup,
    role,
  });
}

export class PythonLint extends Construct {
  readonly fn: LambdaFunction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No platform resource at all: it only reads the code it is handed.
    this.fn = pythonFunction(this, {
      description: "lintScript: reads Python script code with Python's ast",
      module: 'functions/scripts/authoring/lint/python_facts.py',
      memoryMb: 256,
      timeoutSeconds: 10,
    });
  }
}
