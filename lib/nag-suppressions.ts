// Every cdk-nag (AwsSolutions) suppression of the platform, each scoped to the construct it concerns and
// derived from the same route table and grants, so a new route or capability gets only what applies to it.
import { AspectPriority, Aspects, type IAspect, Stack } from 'aws-cdk-lib';
import { CfnManagedPolicy } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { type NagPackSuppression, NagSuppressions } from 'cdk-nag';
import type { AuthMode, Capability } from '../functions/platform/route.js';
import { payoutRunnerFunction } from '../functions/payments/routes.js';
import { scriptResourceCallFunction } from '../functions/scripts/routes.js';
import { templateBuildStateConsumer } from '../functions/consumers.js';
import { type TableName, tables } from '../functions/tables.js';
import { type TableGrants, routeTables } from './grants.js';
import type { PlatformFunction } from './platform-function.js';
import type { Api } from './api.js';
import type { AreaRoutes } from './area-routes.js';
import type { BusConsumers } from './bus-consumers.js';
import type { Events } from './events.js';
import type { Payouts } from './payouts.js';
import type { PythonLint } from './python-lint.js';
import type { PackageInstallers, Scripts } from './scripts.js';
import type { Security } from './security.js';
import type { Storage } from './storage.js';
import type { TemplateBuilds } from './templates.js';

const iam5 = (reason: string, ...appliesTo: (string | RegExp)[]): NagPackSuppression => ({
  id: 'AwsSolutions-IAM5',
  reason,
  appliesTo: appliesTo.map((pattern) => (typeof pattern === 'string' ? pattern : { regex: `/${pattern.source}/` })),
});

const xray = iam5('X-Ray PutTraceSegments and PutTelemetryRecords have no resource-level permissions (Tracing.ACTIVE).', 'Resource::*');
const tableIndexes = iam5(
  "Queries on a granted table's GSIs need <table arn>/index/*; the wildcard stays inside that table.",
  /^Resource::<[^>]+>\/index\/\*$/,
);
const bucketObjects = iam5(
  "Bucket grants of the route's declared bucket: object-level actions on <bucket arn>/* (object keys are per user and per document).",
  /^Action::s3:[A-Za-z]+\*$/,
  /^Resource::<[^>]+>\/\*$/,
);

/** Wildcards a capability's grant (lib/grants.ts) brings, with why each is the narrowest possible. */
const capabilityWildcards: Partial<Record<Capability, NagPackSuppression[]>> = {
  documentsBucket: [bucketObjects],
  pagesBucket: [bucketObjects],
  templateBuilds: [
    bucketObjects,
    iam5(
      'Each template build writes its own log stream, named by CodeBuild at run time; the grant stays inside the build log group.',
      /^Resource::<[^>]+>:log-stream:\*$/,
    ),
  ],
  scheduler: [
    iam5(
      'Schedules are created at run time, one per flow or script schedule; the grant is limited to the platform schedule group.',
      /^Resource::arn:.+:scheduler:.+:schedule\/[^/]+\/\*$/,
    ),
  ],
  scriptFunctions: [
    iam5(
      "Script functions, their roles and log groups are created at run time, one per deployed script; each grant is limited to the stack's <stack>-script- name prefix (and the function's versions and aliases), roles only under the script boundary.",
      /^Resource::arn:.+:lambda:.+:function:[^:*]+-script-\*$/,
      /^Resource::arn:.+:iam::.+:role\/[^:*]+-script-\*$/,
      /^Resource::arn:.+:logs:.+:log-group:\/aws\/lambda\/[^:*]+-script-\*$/,
    ),
    iam5(
      'Dependency layers are published at run time, one per lock hash; the grant is limited to the <stack>-script-deps- name prefix and its versions.',
      /^Resource::arn:.+:lambda:.+:layer:[^:*]+-script-deps-\*(:\*)?$/,
    ),
    bucketObjects,
  ],
  scriptPackages: [bucketObjects],
  llm: [
    iam5(
      'The configured model behind a cross-region inference profile: the profile sends the request to that model in a region of its choosing.',
      /^Resource::arn:.+:bedrock:\*::foundation-model\/[^*]+$/,
    ),
  ],
};

const unauthenticatedRouteReasons: Record<Exclude<AuthMode, 'apiKey'>, string> = {
  public: 'Public by design (route table auth: public): liveness and the OpenAPI document answer anyone.',
  admin: 'Authorized in the handler: the X-Admin-Key header is compared in constant time with the admin key secret (route table auth: admin).',
};

function functionSuppressions(grantedTables: TableGrants, uses: Capability[] = []) {
  const indexed = (Object.keys(grantedTables) as TableName[]).some((name) => 'indexes' in tables[name]);
  return [...new Set([xray, ...(indexed ? [tableIndexes] : []), ...uses.flatMap((capability) => capabilityWildcards[capability] ?? [])])];
}

/** Each function role's suppressions, for the overflow policies CDK splits off the role later (OverflowPolicySuppressions). */
const roleSuppressions = new WeakMap<IConstruct, NagPackSuppression[]>();

function suppressFunction(fn: PlatformFunction, grantedTables: TableGrants, uses: Capability[] = []): void {
  const suppressions = functionSuppressions(grantedTables, uses);
  roleSuppressions.set(fn.role!, suppressions);
  NagSuppressions.addResourceSuppressions(fn.role!, suppressions, true);
}

/**
 * A role whose grants outgrow IAM's inline size gets `OverflowPolicyN` managed policies from CDK at synthesis (in a
 * mutating aspect), after the role's suppressions were applied: they take the same scoped suppressions, before
 * cdk-nag's checks run.
 */
class OverflowPolicySuppressions implements IAspect {
  visit(node: IConstruct): void {
    if (!(node instanceof CfnManagedPolicy)) return;
    const role = node.node.scope?.node.scope;
    const suppressions = role && roleSuppressions.get(role);
    if (suppressions) NagSuppressions.addResourceSuppressions(node, suppressions);
  }
}

function suppress(construct: IConstruct, id: string, reason: string): void {
  NagSuppressions.addResourceSuppressions(construct, [{ id, reason }], true);
}

/** The platform stack's constructs whose findings are suppressed, named here so that this module need not import the stack. */
export interface NaggedStack extends Stack {
  api: Api;
  areas: AreaRoutes[];
  consumers: BusConsumers;
  events: Events;
  scriptResourceCall: PlatformFunction;
  scripts: Scripts;
  security: Security;
  storage: Storage;
  templateBuilds: TemplateBuilds;
  packageInstallers: PackageInstallers;
  payouts: Payouts;
  pythonLint: PythonLint;
}

export function suppressNagFindings(stack: NaggedStack): void {
  Aspects.of(stack).add(new OverflowPolicySuppressions(), { priority: AspectPriority.MUTATING + 100 });
  const { api, areas, consumers, events, scriptResourceCall, scripts, security, storage, templateBuilds } = stack;

  suppressFunction(api.fallbackFunction, {});
  suppressFunction(api.authorizerFunction, { apiKeys: 'read' });
  suppress(
    api.httpApi.node.findChild('DefaultRoute'),
    'AwsSolutions-APIG4',
    '$default only answers unknown paths and methods with a NOT_FOUND envelope; it reaches no data.',
  );
  for (const { route, fn, httpRoute } of areas.flatMap((area) => area.bindings)) {
    suppressFunction(fn, routeTables(route), route.uses);
    if (route.auth !== 'apiKey') suppress(httpRoute, 'AwsSolutions-APIG4', unauthenticatedRouteReasons[route.auth]);
  }
  for (const { consumer, fn } of consumers.bindings) {
    suppressFunction(fn, routeTables(consumer), [...(consumer.uses ?? [])]);
    // A consumer's grants outgrow one inline policy: CDK moves the rest into overflow policies it creates at synthesis,
    // after resource suppressions were applied, so the consumers' own stack carries the same scoped suppressions.
    NagSuppressions.addStackSuppressions(Stack.of(fn), functionSuppressions(routeTables(consumer), [...(consumer.uses ?? [])]));
  }
  suppressFunction(scriptResourceCall, routeTables(scriptResourceCallFunction), [...(scriptResourceCallFunction.uses ?? [])]);

  if (templateBuilds.stateFunction)
    suppressFunction(templateBuilds.stateFunction, routeTables(templateBuildStateConsumer), [...(templateBuildStateConsumer.uses ?? [])]);
  NagSuppressions.addResourceSuppressions(
    [templateBuilds.project, templateBuilds.project.role!],
    [
      iam5(
        "CodeBuild's own grants: its report groups and log streams are named per build at run time, inside this project's names.",
        /^Resource::arn:.+:codebuild:.+:report-group\/<[^>]+>-\*$/,
        /^Resource::arn:.+:logs:.+:log-group:\/aws\/codebuild\/<[^>]+>:\*$/,
        /^Resource::<[^>]+>:\*$/,
      ),
      {
        id: 'AwsSolutions-CB4',
        reason: 'The project keeps no artifacts: builds publish into the pages bucket (S3-managed encryption) and the build logs go to CloudWatch Logs.',
      },
      {
        id: 'AwsSolutions-CB3',
        reason:
          "Privileged for the Docker daemon only: the tenant's build command runs in an unprivileged container of its own with no network, out of reach of the project's credentials.",
      },
    ],
    true,
  );
  NagSuppressions.addResourceSuppressions(templateBuilds.publishRole, [bucketObjects], true);
  NagSuppressions.addResourceSuppressions(
    scripts.roleBoundary,
    [
      iam5(
        "Script functions are created at run time under the stack's <stack>-script- prefix; their log groups are only known by that prefix.",
        /^Resource::arn:.+:logs:.+:log-group:\/aws\/lambda\/[^:*]+-script-\*$/,
      ),
    ],
    true,
  );
  suppress(
    security.adminKeySecret,
    'AwsSolutions-SMG4',
    'The admin key is a static credential handed to operators; rotate it with put-secret-value (functions re-read it on cold start).',
  );
  suppress(
    security.scriptGrantKeySecret,
    'AwsSolutions-SMG4',
    'Grants live minutes and functions keep the key per container: rotate with put-secret-value, then update the functions (docs/decisions.md).',
  );
  for (const wallet of [security.walletSecret, security.feePayerSecret]) {
    suppress(wallet, 'AwsSolutions-SMG4', 'A Solana keypair cannot be rotated by Secrets Manager: a new key is a new wallet address without the funds.');
  }
  suppressFunction(stack.payouts.fn, routeTables(payoutRunnerFunction), [...(payoutRunnerFunction.uses ?? [])]);
  for (const installer of [stack.packageInstallers.npm, stack.packageInstallers.pip]) {
    NagSuppressions.addResourceSuppressions(
      installer.role!,
      [
        xray,
        iam5(
          'Installed trees are stored at run time, one zip per lock hash; the grant is limited to the script-deps/ prefix of the script-packages bucket.',
          /^Resource::<[^>]+>\/script-deps\/\*$/,
        ),
      ],
      true,
    );
  }
  suppress(
    stack.packageInstallers.pip,
    'AwsSolutions-L1',
    'python3.13 on purpose: the runtime of the python3.11 script label, so pip picks the wheels the scripts will import.',
  );
  suppress(
    stack.pythonLint.fn,
    'AwsSolutions-L1',
    'python3.13 on purpose: the runtime of the python3.11 script label, so lint reads code with the Python that runs it.',
  );
  suppress(events.deadLetterQueue, 'AwsSolutions-SQS3', 'This queue is the dead-letter queue of the event dispatcher rules; it needs none of its own.');

  suppress(storage.distribution, 'AwsSolutions-CFR1', 'Template pages are published for a worldwide audience; no country is excluded.');
  suppress(
    storage.distribution,
    'AwsSolutions-CFR2',
    'Static S3 content behind Origin Access Control with no origin compute to protect; a WAF web ACL is left to the deployment.',
  );
  if (!storage.hasCustomCertificate) {
    suppress(
      storage.distribution,
      'AwsSolutions-CFR4',
      'Without pagesDomain and pagesCertificateArn the distribution uses the default *.cloudfront.net certificate, whose minimum protocol CloudFront fixes; with them it enforces TLSv1.2_2021.',
    );
  }
}
