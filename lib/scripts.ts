// User scripts run as their own Lambda functions, each with its own role made by the deployer
// (functions/adapters/aws/script-function-upkeep.ts) under the permissions boundary defined here; their packages are
// installed by the installer functions defined here too.
import { fileURLToPath } from 'node:url';
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { Function as LambdaFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { envNames } from '../functions/platform/env-names.js';
import { installerTimeLimitSeconds, npmInstallerFunction } from '../functions/scripts/routes.js';
import { PlatformFunction } from './platform-function.js';
import { pythonFunction, pythonLambdaRuntime } from './python-lint.js';

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
    if (this.functionPrefix.length > maxFunctionPrefix)
      throw new Error(`stack name ${stack.stackName} is too long for script function names: at most ${maxFunctionPrefix - 8} characters`);
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
          resources: [
            stack.formatArn({
              service: 'logs',
              resource: 'log-group',
              resourceName: `/aws/lambda/${this.functionPrefix}*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          ],
        }),
      ],
    });
  }

  /** Scripts' only way to the platform: the function that makes resource calls under a run's signed grant. */
  allowResourceCalls(fn: IFunction): void {
    this.roleBoundary.addStatements(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }));
  }
}

/** How many installs run at once, per package manager: each holds an API request, and registries rate-limit. */
const installerConcurrency = 10;

/**
 * The functions the API functions invoke to install a version's packages (the `packageInstallers` capability): npm
 * on the Node runtime, pip on the Python runtime, each answering within the API's 29 s. Their roles may write their
 * own logs and read and write installed trees under `script-deps/` of the script-packages bucket, nothing else: no
 * table, key, secret or other function, so a package manager tricked by a registry reaches nothing of the platform.
 */
export class PackageInstallers extends Construct {
  readonly npm: PlatformFunction;
  readonly pip: LambdaFunction;

  constructor(scope: Construct, id: string, props: { packagesBucket: IBucket }) {
    super(scope, id);
    const environment = {
      [envNames.scriptPackagesBucket]: props.packagesBucket.bucketName,
      [envNames.packageInstallTimeoutSeconds]: String(installerTimeLimitSeconds),
    };
    this.npm = new PlatformFunction(this, npmInstallerFunction.name, {
      entry: npmInstallerFunction.handler,
      description: `${npmInstallerFunction.name}: ${npmInstallerFunction.summary}`,
      memoryMb: npmInstallerFunction.memoryMb,
      timeoutSeconds: npmInstallerFunction.timeoutSeconds,
      environment,
      reservedConcurrency: installerConcurrency,
    });
    this.pip = pythonFunction(new Construct(this, 'PipInstaller'), {
      description: "PipInstaller: installs a script version's pure-Python wheels and stores the tree",
      module: 'functions/scripts/packages/installer/pip_installer.py',
      memoryMb: npmInstallerFunction.memoryMb!,
      timeoutSeconds: npmInstallerFunction.timeoutSeconds!,
      environment,
      reservedConcurrency: installerConcurrency,
    });
    for (const fn of [this.npm, this.pip]) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [props.packagesBucket.arnForObjects('script-deps/*')] }));
    }
  }
}
