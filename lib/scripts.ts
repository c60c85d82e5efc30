// User scripts run as their own Lambda functions (DESIGN.md §1); this is the role they run with.
import { fileURLToPath } from 'node:url';
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

export class Scripts extends Construct {
  /** Every script function's name starts with this; the scripts area's grants are scoped to it. */
  readonly functionPrefix = 'platform-script-';
  readonly executionRole: Role;
  /** The wrapper around user code (`layers/script-runtime`: nodejs/ and python/), the same code the local pool runs. */
  readonly runtimeLayer: LayerVersion;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    this.runtimeLayer = new LayerVersion(this, 'RuntimeLayer', {
      code: Code.fromAsset(fileURLToPath(new URL('../layers/script-runtime', import.meta.url))),
      compatibleRuntimes: [Runtime.NODEJS_LATEST, Runtime.PYTHON_3_11],
      compatibleArchitectures: [Architecture.X86_64, Architecture.ARM_64],
      description: 'Script runtime wrapper: resources proxy, context, log capture, result shape',
    });
    // User code gets logging, and invoking the resource-call function (allowResourceCalls): no platform table,
    // secret or bus is reachable from a script.
    this.executionRole = new Role(this, 'ExecutionRole', {
      description: 'Execution role of user script functions: write their own logs, invoke the resource-call function',
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        logs: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: `/aws/lambda/${this.functionPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
            }),
          ],
        }),
      },
    });
  }

  /** Scripts' only way to the platform: the function that makes resource calls under a run's signed grant. */
  allowResourceCalls(fn: IFunction): void {
    this.executionRole.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }));
  }
}
