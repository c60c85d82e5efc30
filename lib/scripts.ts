// User scripts run as their own Lambda functions (DESIGN.md §1), each with its own role made by the deployer
// (functions/adapters/aws/script-function-upkeep.ts) under the permissions boundary defined here.
import { fileURLToPath } from 'node:url';
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { pythonLambdaRuntime } from './python-lint.js';

const maxFunctionPrefix = 64 - 'scr_'.length - 16;

export class Scripts extends Construct {
  /** Every script function's name (and its role's) starts with this; the scripts area's grants are scoped to it. */
  readonly functionPrefix: string;
  /**
   * The most any script role may do: write logs of script functions and invoke the resource-call function
   * (allowResourceCalls). Each role's own policy narrows the logs to its own group, so one script cannot write
   * another's logs; no platform table, secret or bus is reachable from a script.
   */
  readonly roleBoundary: ManagedPolicy;
  /** The wrapper around user code (`layers/script-runtime`: nodejs/ and python/), the same code the local pool runs. */
  readonly runtimeLayer: LayerVersion;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    // Named after the stack so stages keep apart; Lambda names stop at 64 characters and script ids take 20.
    this.functionPrefix = `${stack.stackName}-script-`;
    if (this.functionPrefix.length > maxFunctionPrefix) throw new Error(`stack name ${stack.stackName} is too long for script function names: at most ${maxFunctionPrefix - 8} characters`);
    this.runtimeLayer = new LayerVersion(this, 'RuntimeLayer', {
      code: Code.fromAsset(fileURLToPath(new URL('../layers/script-runtime', import.meta.url))),
      compatibleRuntimes: [Runtime.NODEJS_LATEST, pythonLambdaRuntime],
      compatibleArchitectures: [Architecture.X86_64, Architecture.ARM_64],
      description: 'Script runtime wrapper: resources proxy, context, log capture, result shape',
    });
    this.roleBoundary = new ManagedPolicy(this, 'RoleBoundary', {
      description: 'Permissions boundary of every script function role: its logs, and resource calls through the platform',
      statements: [
        new PolicyStatement({
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: `/aws/lambda/${this.functionPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
        }),
      ],
    });
  }

  /** Scripts' only way to the platform: the function that makes resource calls under a run's signed grant. */
  allowResourceCalls(fn: IFunction): void {
    this.roleBoundary.addStatements(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }));
  }
}
