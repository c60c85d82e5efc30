// Least privilege, derived from the route table: a function gets the tables and capabilities its route declares, nothing else.
import { type ArnComponents, ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { type IManagedPolicy, type IRole, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IProject } from 'aws-cdk-lib/aws-codebuild';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { type Capability, type Route, type TableAccess, routeTables } from '../functions/platform/route.js';
import { type TableName, tableEnvVar } from '../functions/tables.js';
import type { PlatformFunction } from './platform-function.js';
import { envNames } from '../functions/platform/env-names.js';

/** Everything a capability can point at; built once by the parent stack. */
export interface PlatformResources {
  tables: Record<TableName, ITable>;
  adminKeySecret: ISecret;
  credentialsKey: IKey;
  eventBus: IEventBus;
  scheduleGroupName: string;
  schedulerRole: IRole;
  documentsBucket: IBucket;
  /** The S3 Vectors index of large document graphs (documents.ts). */
  documentVectorIndexArn: string;
  /** Installed packages of script versions, one zip per lock hash; also the S3 source of large function and layer packages. */
  scriptPackagesBucket: IBucket;
  pagesBucket: IBucket;
  pagesBaseUrl: string;
  /** Set when sites also answer at `<sub>.<pagesDomain>`. */
  pagesDomain?: string;
  /** Where durable runs' links point: the console's address, which serves the approval page and forwards /api/* (callback URLs). */
  runLinksBaseUrl: string;
  /** The permissions boundary every script function's own role is created under. */
  scriptRoleBoundary: IManagedPolicy;
  scriptFunctionPrefix: string;
  scriptRuntimeLayerArn: string;
  /** Signs each Lambda-deployed script run's grant; the resource-call function verifies it. */
  scriptGrantKeySecret: ISecret;
  /** The template build project and the log group its builds write to. */
  templateBuilds: { project: IProject; logGroup: ILogGroup };
  /** What Lambda-deployed scripts invoke for their resource calls. */
  scriptResourceCallFunction: IFunction;
  walletSecret: ISecret;
  feePayerSecret: ISecret;
  /** Install script dependencies, one function per package manager (PackageInstallers in lib/scripts.ts). */
  packageInstallers: { npm: IFunction; pip: IFunction };
  /** Reads Python code with Python's `ast` for lintScript (lib/python-lint.ts). */
  pythonLintFunction: IFunction;
  /** Pays owners their share of reference-client payments (functions/payments/routes.ts). */
  payoutFunction: IFunction;
  /** The language model of LLM flows (functions/adapters/llm.ts); nothing set answers LLM_NOT_CONFIGURED. */
  llm?: LlmSettings;
}

export interface LlmSettings {
  /** `bedrock` (Converse, the default) or `openai` (any OpenAI-compatible endpoint at `baseUrl`). */
  provider?: 'bedrock' | 'openai';
  /** A Bedrock model or inference profile id, or the endpoint's model name. */
  model?: string;
  baseUrl?: string;
  /** A Secrets Manager secret holding the endpoint's API key; the functions that use `llm` may read it. */
  apiKeySecretArn?: string;
  inputUsdPerMTok?: string;
  outputUsdPerMTok?: string;
}

export type TableGrants = Partial<Record<TableName, TableAccess>>;

export { routeTables };

/** Bedrock model the `embeddings` grant is scoped to (Titan Text Embeddings v2). */
export const embeddingModelId = 'amazon.titan-embed-text-v2:0';

export function grantTables(fn: PlatformFunction, grants: TableGrants, resources: PlatformResources): void {
  for (const [name, access] of Object.entries(grants) as [TableName, TableAccess][]) {
    const table = resources.tables[name];
    if (access === 'write') table.grantReadWriteData(fn);
    else table.grantReadData(fn);
    fn.addEnvironment(tableEnvVar(name), table.tableName);
  }
}

const arn = (fn: PlatformFunction, parts: ArnComponents) => Stack.of(fn).formatArn(parts);

/** iam:PassRole, and only towards the service that is meant to assume the role. */
const passRole = (fn: PlatformFunction, role: IRole, service: string) =>
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['iam:PassRole'], resources: [role.roleArn], conditions: { StringEquals: { 'iam:PassedToService': service } } }),
  );

/**
 * Around each script function (functions/adapters/aws/script-function-upkeep.ts): its log group with retention, its
 * own role (only ever created under the boundary, and passed only to Lambda), and pruning its old versions.
 */
function scriptFunctionUpkeep(fn: PlatformFunction, r: PlatformResources) {
  const roles = arn(fn, { service: 'iam', region: '', resource: 'role', resourceName: `${r.scriptFunctionPrefix}*` });
  const boundary = { StringEquals: { 'iam:PermissionsBoundary': r.scriptRoleBoundary.managedPolicyArn } };
  fn.addToRolePolicy(new PolicyStatement({ actions: ['iam:CreateRole', 'iam:PutRolePolicy'], resources: [roles], conditions: boundary }));
  fn.addToRolePolicy(new PolicyStatement({ actions: ['iam:GetRole', 'iam:DeleteRolePolicy', 'iam:DeleteRole'], resources: [roles] }));
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['iam:PassRole'], resources: [roles], conditions: { StringEquals: { 'iam:PassedToService': 'lambda.amazonaws.com' } } }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['logs:CreateLogGroup', 'logs:PutRetentionPolicy', 'logs:DeleteLogGroup'],
      resources: [
        arn(fn, { service: 'logs', resource: 'log-group', resourceName: `/aws/lambda/${r.scriptFunctionPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
      ],
    }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['lambda:ListVersionsByFunction', 'lambda:ListAliases'],
      resources: [arn(fn, { service: 'lambda', resource: 'function', resourceName: `${r.scriptFunctionPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
    }),
  );
  fn.addEnvironment(envNames.scriptRoleBoundaryArn, r.scriptRoleBoundary.managedPolicyArn);
}

function grantScriptGrantKey(fn: PlatformFunction, r: PlatformResources) {
  r.scriptGrantKeySecret.grantRead(fn);
  fn.addEnvironment(envNames.scriptGrantSecretArn, r.scriptGrantKeySecret.secretArn);
}

function grantScriptPackages(fn: PlatformFunction, r: PlatformResources) {
  r.scriptPackagesBucket.grantReadWrite(fn);
  fn.addEnvironment(envNames.scriptPackagesBucket, r.scriptPackagesBucket.bucketName);
}

/** Geographic prefixes of cross-region inference profile ids (`us.anthropic.claude-...`). */
const inferenceProfilePrefix = /^(us|eu|apac|us-gov|global)\./;

/**
 * The configured model only: a foundation model in the stack's region, or an inference profile of this account
 * and region plus the foundation model it routes to, in whichever region the profile sends the request.
 */
export function bedrockModelArns(fn: PlatformFunction, model: string): string[] {
  if (!inferenceProfilePrefix.test(model)) return [arn(fn, { service: 'bedrock', account: '', resource: 'foundation-model', resourceName: model })];
  return [
    arn(fn, { service: 'bedrock', resource: 'inference-profile', resourceName: model }),
    arn(fn, { service: 'bedrock', region: '*', account: '', resource: 'foundation-model', resourceName: model.replace(inferenceProfilePrefix, '') }),
  ];
}

/** The one mapping from capability to IAM grant and environment; a Record, so a new Capability will not compile without its grant. */
const capabilityGrants: Record<Capability, (fn: PlatformFunction, r: PlatformResources) => void> = {
  adminSecret(fn, r) {
    r.adminKeySecret.grantRead(fn);
    fn.addEnvironment(envNames.adminKeySecretArn, r.adminKeySecret.secretArn);
  },
  credentialsKey(fn, r) {
    r.credentialsKey.grant(fn, 'kms:Encrypt', 'kms:Decrypt', 'kms:GenerateDataKey');
    fn.addEnvironment(envNames.credentialsKeyArn, r.credentialsKey.keyArn);
  },
  eventBus(fn, r) {
    r.eventBus.grantPutEventsTo(fn);
    fn.addEnvironment(envNames.eventBusName, r.eventBus.eventBusName);
  },
  scheduler(fn, r) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
        resources: [arn(fn, { service: 'scheduler', resource: 'schedule', resourceName: `${r.scheduleGroupName}/*` })],
      }),
    );
    passRole(fn, r.schedulerRole, 'scheduler.amazonaws.com');
    fn.addEnvironment(envNames.scheduleGroupName, r.scheduleGroupName);
    fn.addEnvironment(envNames.schedulerRoleArn, r.schedulerRole.roleArn);
  },
  documentsBucket(fn, r) {
    r.documentsBucket.grantReadWrite(fn);
    fn.addEnvironment(envNames.documentsBucket, r.documentsBucket.bucketName);
  },
  documentVectors(fn, r) {
    // QueryVectors with metadata also needs GetVectors.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3vectors:PutVectors', 's3vectors:GetVectors', 's3vectors:QueryVectors', 's3vectors:DeleteVectors'],
        resources: [r.documentVectorIndexArn],
      }),
    );
    fn.addEnvironment(envNames.documentVectorIndexArn, r.documentVectorIndexArn);
  },
  pagesBucket(fn, r) {
    r.pagesBucket.grantReadWrite(fn);
    fn.addEnvironment(envNames.pagesBucket, r.pagesBucket.bucketName);
    fn.addEnvironment(envNames.pagesBaseUrl, r.pagesBaseUrl);
    if (r.pagesDomain) fn.addEnvironment(envNames.pagesDomain, r.pagesDomain);
  },
  scriptFunctions(fn, r) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'lambda:CreateFunction',
          'lambda:UpdateFunctionCode',
          'lambda:UpdateFunctionConfiguration',
          'lambda:PublishVersion',
          'lambda:CreateAlias',
          'lambda:UpdateAlias',
          'lambda:GetAlias',
          'lambda:InvokeFunction',
          'lambda:DeleteFunction',
          'lambda:GetFunction',
          'lambda:GetFunctionConfiguration',
        ],
        // The wildcard also covers `:version` and `:alias` qualifiers of each script function.
        resources: [arn(fn, { service: 'lambda', resource: 'function', resourceName: `${r.scriptFunctionPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
      }),
    );
    fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:GetLayerVersion'], resources: [r.scriptRuntimeLayerArn] }));
    // Dependency layers, one per lock hash, named under the same prefix (functions/adapters/aws/script-packages.ts),
    // deleted with the last version using their tree.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:PublishLayerVersion', 'lambda:ListLayerVersions', 'lambda:GetLayerVersion', 'lambda:DeleteLayerVersion'],
        resources: [
          arn(fn, { service: 'lambda', resource: 'layer', resourceName: `${r.scriptFunctionPrefix}deps-*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
          arn(fn, { service: 'lambda', resource: 'layer', resourceName: `${r.scriptFunctionPrefix}deps-*:*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
        ],
      }),
    );
    grantScriptPackages(fn, r);
    scriptFunctionUpkeep(fn, r);
    fn.addEnvironment(envNames.scriptRuntimeLayerArn, r.scriptRuntimeLayerArn);
    fn.addEnvironment(envNames.scriptFunctionPrefix, r.scriptFunctionPrefix);
    // Deployed script functions are told where to send resource calls; runs are signed for it.
    fn.addEnvironment(envNames.resourceCallFunction, r.scriptResourceCallFunction.functionName);
    fn.addEnvironment(envNames.resourceCallFunctionArn, r.scriptResourceCallFunction.functionArn);
    grantScriptGrantKey(fn, r);
  },
  scriptGrantKey: grantScriptGrantKey,
  scriptPackages: grantScriptPackages,
  packageInstallers(fn, r) {
    // The functions themselves, not grantInvoke's `:*` of every version and alias.
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [r.packageInstallers.npm.functionArn, r.packageInstallers.pip.functionArn] }),
    );
    fn.addEnvironment(envNames.npmInstallerFunction, r.packageInstallers.npm.functionName);
    fn.addEnvironment(envNames.pipInstallerFunction, r.packageInstallers.pip.functionName);
  },
  platformWallet(fn, r) {
    r.walletSecret.grantRead(fn);
    fn.addEnvironment(envNames.walletSecretArn, r.walletSecret.secretArn);
  },
  feePayer(fn, r) {
    r.feePayerSecret.grantRead(fn);
    fn.addEnvironment('FEE_PAYER_SECRET_ARN', r.feePayerSecret.secretArn);
  },
  payoutRunner(fn, r) {
    // The function itself, not grantInvoke's `:*` of every version and alias.
    fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [r.payoutFunction.functionArn] }));
    fn.addEnvironment('PAYOUT_FUNCTION_NAME', r.payoutFunction.functionName);
  },
  embeddings(fn) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel'],
        resources: [arn(fn, { service: 'bedrock', account: '', resource: 'foundation-model', resourceName: embeddingModelId })],
      }),
    );
    fn.addEnvironment(envNames.embeddingModelId, embeddingModelId);
  },
  llm(fn, r) {
    const settings = r.llm ?? {};
    const environment: Record<string, string | undefined> = {
      [envNames.llmProvider]: settings.provider ?? 'bedrock',
      [envNames.llmModel]: settings.model,
      [envNames.llmBaseUrl]: settings.baseUrl,
      [envNames.llmApiKeySecretArn]: settings.apiKeySecretArn,
      [envNames.llmInputUsdPerMTok]: settings.inputUsdPerMTok,
      [envNames.llmOutputUsdPerMTok]: settings.outputUsdPerMTok,
    };
    for (const [name, value] of Object.entries(environment)) if (value) fn.addEnvironment(name, value);
    if (settings.apiKeySecretArn)
      fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [settings.apiKeySecretArn] }));
    if ((settings.provider ?? 'bedrock') === 'bedrock' && settings.model) {
      // Converse and ConverseStream authorize as InvokeModel and InvokeModelWithResponseStream; there is no bedrock:Converse action.
      fn.addToRolePolicy(
        new PolicyStatement({ actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'], resources: bedrockModelArns(fn, settings.model) }),
      );
    }
  },
  templateBuilds(fn, r) {
    capabilityGrants.pagesBucket(fn, r);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['codebuild:StartBuild'], resources: [r.templateBuilds.project.projectArn] }));
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['logs:GetLogEvents'], resources: [`${r.templateBuilds.logGroup.logGroupArn.replace(/:\*$/, '')}:log-stream:*`] }),
    );
    fn.addEnvironment(envNames.templateBuildProject, r.templateBuilds.project.projectName);
    fn.addEnvironment(envNames.templateBuildLogGroup, r.templateBuilds.logGroup.logGroupName);
  },
  pythonLint(fn, r) {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [r.pythonLintFunction.functionArn] }));
    fn.addEnvironment(envNames.pythonLintFunction, r.pythonLintFunction.functionName);
  },
  selfInvoke(fn) {
    // Not in the role's default policy: the function waits for that policy, so naming the function there would be a cycle.
    new Policy(fn, 'SelfInvoke', { roles: [fn.role!], statements: [new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] })] });
  },
};

/** Grants a function exactly what its route or bus consumer declares. */
export function grantFunction(
  fn: PlatformFunction,
  declared: Pick<Route, 'tables'> & { auth?: Route['auth']; uses?: readonly Capability[] },
  resources: PlatformResources,
): void {
  const tables = routeTables(declared);
  grantTables(fn, tables, resources);
  // Opening a wait writes the run's journal, and a callback or approval wait hands out a link: every function that may
  // open one learns where links point (without it, a function on AWS refuses to make a link: platform/settings.ts).
  if (tables.scriptSteps === 'write') fn.addEnvironment(envNames.callbackBaseUrl, resources.runLinksBaseUrl);
  for (const capability of new Set(declared.uses ?? [])) capabilityGrants[capability](fn, resources);
}
