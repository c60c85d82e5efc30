// The Python function lintScript invokes on AWS (the `pythonLint` capability): Python's own `ast` reads the code,
// as python3 does locally, through the same functions/scripts/lint/python_facts.py.
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The Python runtime of the `python3.11` script label and of this function: supported, on Amazon Linux 2023. */
export const pythonLambdaRuntime = Runtime.PYTHON_3_13;

export class PythonLint extends Construct {
  readonly fn: LambdaFunction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    // No platform resource at all: it only reads the code it is handed.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    this.fn = new LambdaFunction(this, 'Function', {
      description: 'lintScript: reads Python script code with Python\'s ast',
      runtime: pythonLambdaRuntime,
      architecture: Architecture.ARM_64,
      code: Code.fromAsset(fileURLToPath(new URL('../functions/scripts/lint', import.meta.url)), { exclude: ['*', '!python_facts.py'] }),
      handler: 'python_facts.handler',
      memorySize: 256,
      timeout: Duration.seconds(10),
      logGroup,
      role,
    });
  }
}
