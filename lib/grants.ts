// Least privilege, derived from the route table: a function gets the tables and capabilities its route declares, nothing else.
import { type ArnComponents, ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { type IRole, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Capability, Route, TableAccess } from '../functions/platform/route.js';
import { type TableName, tableEnvVar } from '../functions/tables.js';
import type { PlatformFunction } from './platform-function.js';

/** Everything a capability can point at; built once by the parent stack. */
export interface PlatformResources {
  tables: Record<TableName, ITable>;
  adminKeySecret: ISecret;
  credentialsKey: IKey;
  eventBus: IEventBus;
  scheduleGroupName: string;
  schedulerRole: IRole;
  documentsBucket: IBucket;
  pagesBucket: IBucket;
  pagesBaseUrl: string;
  /** Set when sites also answer at `<sub>.<pagesDomain>`. */
  pagesDomain?: string;
  scriptRole: IRole;
  scriptFunctionPrefix: string;
  scriptRuntimeLayerArn: string;
  /** Signs each Lambda-deployed script run's grant; the resource-call function verifies it. */
  scriptGrantKeySecret: ISecret;
  /** What Lambda-deployed scripts invoke for their resource calls. */
  scriptResourceCallFunction: IFunction;
  walletSecret: ISecret;
  feePayerSecret: ISecret;
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

/** Bedrock model the `embeddings` grant is scoped to (DESIGN.md §1: Titan Text Embeddings v2). */
export const embeddingModelId = 'amazon.titan-embed-text-v2:0';

/**
 * Tables a route's function touches. Every `apiKey` route also counts its caller in `rateLimits`:
 * the http middleware (functions/platform/http.ts) does that before the handler runs.
 */
export function routeTables(route: Pick<Route, 'tables'> & { auth?: Route['auth'] }): TableGrants {
  return route.auth === 'apiKey' ? { ...route.tables, rateLimits: 'write' } : { ...route.tables };
}

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
  fn.addToRolePolicy(new PolicyStatement({ actions: ['iam:PassRole'], resources: [role.roleArn], conditions: { StringEquals: { 'iam:PassedToService': service } } }));

function grantScriptGrantKey(fn: PlatformFunction, r: PlatformResources) {
  r.scriptGrantKeySecret.grantRead(fn);
  fn.addEnvironment('SCRIPT_GRANT_SECRET_ARN', r.scriptGrantKeySecret.secretArn);
}

/** The one mapping from capability to IAM grant and environment; a Record, so a new Capability will not compile without its grant. */
const capabilityGrants: Record<Capability, (fn: PlatformFunction, r: PlatformResources) => void> = {
  adminSecret(fn, r) {
    r.adminKeySecret.grantRead(fn);
    fn.addEnvironment('ADMIN_KEY_SECRET_ARN', r.adminKeySecret.secretArn);
  },
  credentialsKey(fn, r) {
    r.credentialsKey.grant(fn, 'kms:Encrypt', 'kms:Decrypt', 'kms:GenerateDataKey');
    fn.addEnvironment('CREDENTIALS_KEY_ARN', r.credentialsKey.keyArn);
  },
  eventBus(fn, r) {
    r.eventBus.grantPutEventsTo(fn);
    fn.addEnvironment('EVENT_BUS_NAME', r.eventBus.eventBusName);
  },
  scheduler(fn, r) {
    fn.addToRolePolicy(new PolicyStatement({
      actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
      resources: [arn(fn, { service: 'scheduler', resource: 'schedule', resourceName: `${r.scheduleGroupName}/*` })],
    }));
    passRole(fn, r.schedulerRole, 'scheduler.amazonaws.com');
    fn.addEnvironment('SCHEDULE_GROUP_NAME', r.scheduleGroupName);
    fn.addEnvironment('SCHEDULER_ROLE_ARN', r.schedulerRole.roleArn);
  },
  documentsBucket(fn, r) {
    r.documentsBucket.grantReadWrite(fn);
    fn.addEnvironment('DOCUMENTS_BUCKET', r.documentsBucket.bucketName);
  },
  pagesBucket(fn, r) {
    r.pagesBucket.grantReadWrite(fn);
    fn.addEnvironment('PAGES_BUCKET', r.pagesBucket.bucketName);
    fn.addEnvironment('PAGES_BASE_URL', r.pagesBaseUrl);
    if (r.pagesDomain) fn.addEnvironment('PAGES_DOMAIN', r.pagesDomain);
  },
  scriptFunctions(fn, r) {
    fn.addToRolePolicy(new PolicyStatement({
      actions: [
        'lambda:CreateFunction', 'lambda:UpdateFunctionCode', 'lambda:UpdateFunctionConfiguration', 'lambda:PublishVersion',
        'lambda:CreateAlias', 'lambda:UpdateAlias', 'lambda:GetAlias', 'lambda:InvokeFunction', 'lambda:DeleteFunction',
        'lambda:GetFunction', 'lambda:GetFunctionConfiguration',
      ],
      // The wildcard also covers `:version` and `:alias` qualifiers of each script function.
      resources: [arn(fn, { service: 'lambda', resource: 'function', resourceName: `${r.scriptFunctionPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
    }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:GetLayerVersion'], resources: [r.scriptRuntimeLayerArn] }));
    passRole(fn, r.scriptRole, 'lambda.amazonaws.com');
    fn.addEnvironment('SCRIPT_RUNTIME_LAYER_ARN', r.scriptRuntimeLayerArn);
    fn.addEnvironment('SCRIPT_ROLE_ARN', r.scriptRole.roleArn);
    fn.addEnvironment('SCRIPT_FUNCTION_PREFIX', r.scriptFunctionPrefix);
    // Deployed script functions are told where to send resource calls; runs are signed for it.
    fn.addEnvironment('RESOURCE_CALL_FUNCTION', r.scriptResourceCallFunction.functionName);
    grantScriptGrantKey(fn, r);
  },
  scriptGrantKey: grantScriptGrantKey,
  platformWallet(fn, r) {
    r.walletSecret.grantRead(fn);
    fn.addEnvironment('PLATFORM_WALLET_SECRET_ARN', r.walletSecret.secretArn);
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
    fn.addToRolePolicy(new PolicyStatement({
      actions: ['bedrock:InvokeModel'],
      resources: [arn(fn, { service: 'bedrock', account: '', resource: 'foundation-model', resourceName: embeddingModelId })],
    }));
    fn.addEnvironment('EMBEDDING_MODEL_ID', embeddingModelId);
  },
  llm(fn, r) {
    const settings = r.llm ?? {};
    const environment: Record<string, string | undefined> = {
      LLM_PROVIDER: settings.provider ?? 'bedrock',
      LLM_MODEL: settings.model,
      LLM_BASE_URL: settings.baseUrl,
      LLM_API_KEY_SECRET_ARN: settings.apiKeySecretArn,
      LLM_INPUT_USD_PER_MTOK: settings.inputUsdPerMTok,
      LLM_OUTPUT_USD_PER_MTOK: settings.outputUsdPerMTok,
    };
    for (const [name, value] of Object.entries(environment)) if (value) fn.addEnvironment(name, value);
    if (settings.apiKeySecretArn) fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [settings.apiKeySecretArn] }));
    // Converse and ConverseStream authorize as InvokeModel and InvokeModelWithResponseStream; there is no bedrock:Converse action.
    // Cross-region inference profiles route to foundation models in other regions, hence region `*`.
    fn.addToRolePolicy(new PolicyStatement({
      actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
      resources: [
        arn(fn, { service: 'bedrock', region: '*', account: '', resource: 'foundation-model', resourceName: '*' }),
        arn(fn, { service: 'bedrock', resource: 'inference-profile', resourceName: '*' }),
      ],
    }));
  },
  selfInvoke(fn) {
    // Not in the role's default policy: the function waits for that policy, so naming the function there would be a cycle.
    new Policy(fn, 'SelfInvoke', { roles: [fn.role!], statements: [new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] })] });
  },
};

/** Grants a function exactly what its route or bus consumer declares. */
export function grantFunction(fn: PlatformFunction, declared: Pick<Route, 'tables'> & { auth?: Route['auth']; uses?: readonly Capability[] }, resources: PlatformResources): void {
  grantTables(fn, routeTables(declared), resources);
  for (const capability of new Set(declared.uses ?? [])) capabilityGrants[capability](fn, resources);
}
