import { execFileSync } from 'node:child_process';
import { Aspects } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { busConsumers } from '../../functions/consumers.js';
import type { Capability, Route } from '../../functions/platform/route.js';
import { deployedRoutes as routes } from '../../functions/routes.js';
import { installerTimeLimitSeconds, npmInstallerFunction, scriptResourceCallFunction } from '../../functions/scripts/routes.js';
import { keyName, tableEnvVar, tableNames, tables } from '../../functions/tables.js';
import { pagesRouterCode } from '../../lib/pages-router.js';
import { defaultMemoryMb, defaultTimeoutSeconds, latestNodeRuntime } from '../../lib/platform-function.js';
import { PlatformStack } from '../../lib/platform-stack.js';
import { templateBuildSpec } from '../../lib/templates.js';
import { type Json, Synthesized, allows, appWithoutBundling, describeMessages, logicalId, mentions, tableArn } from './synthesized.js';

describe('infra: PlatformStack from the route table', () => {
  let s: Synthesized;

  beforeAll(() => {
    // Prepare
    const app = appWithoutBundling();
    const stack = new PlatformStack(app, 'PlatformStack');
    Aspects.of(app).add(new AwsSolutionsChecks());
    // Act
    s = new Synthesized(stack);
  });

  it('puts each area of the route table in its own nested stack with one function per route', () => {
    // Prepare
    const areas = [...new Set(routes.map((route) => route.area))];
    // Act
    const functionsPerArea = s.stack.areas.map((area) => [area.area, s.template(area).findResources('AWS::Lambda::Function')] as const);
    // Assess
    expect(s.stack.areas.map((area) => area.area)).toEqual(areas);
    for (const [area, functions] of functionsPerArea) {
      expect(Object.keys(functions)).toHaveLength(routes.filter((route) => route.area === area).length);
    }
    // The parent holds only the authorizer, the $default fallback, the scripts' resource-call function, the template build recorder, the payout
    // function, the Python lint function and the two package installers; no custom-resource functions.
    const { api, scriptResourceCall, templateBuilds, payouts, pythonLint, packageInstallers } = s.stack;
    expect(Object.keys(s.parent.findResources('AWS::Lambda::Function')).sort()).toEqual(
      [
        api.authorizerFunction,
        api.fallbackFunction,
        scriptResourceCall,
        templateBuilds.stateFunction!,
        payouts.fn,
        pythonLint.fn,
        packageInstallers.npm,
        packageInstallers.pip,
      ]
        .map((fn) => logicalId(fn.node.defaultChild))
        .sort(),
    );
  });

  it('runs the payout function hourly with the payout tables and both platform keys', () => {
    // Act
    const rules = Object.values(s.parent.findResources('AWS::Events::Rule', { Properties: { ScheduleExpression: 'rate(1 hour)' } }));
    const variables = Object.keys(
      s.parent.findResources('AWS::Lambda::Function')[logicalId(s.stack.payouts.fn.node.defaultChild)]!.Properties.Environment.Variables,
    );
    // Assess
    expect(rules).toHaveLength(1);
    expect(variables).toEqual(
      expect.arrayContaining(['FEE_PAYER_SECRET_ARN', 'PLATFORM_WALLET_SECRET_ARN', 'TABLE_PAYOUTS', 'TABLE_PAYOUT_BATCHES', 'TABLE_USERS']),
    );
  });

  it("routes METHOD path of every route to its own handler with the route's memory and timeout", () => {
    for (const route of routes) {
      // Prepare
      const area = s.area(route.area);
      // Act
      const found = Object.values(s.template(area).findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: `${route.method} ${route.path}` } }));
      // Assess
      expect(found, route.operation).toHaveLength(1);
      const integrationId = found[0]!.Properties.Target['Fn::Join'][1][1].Ref;
      const functionId = s.resource(area, integrationId).Properties.IntegrationUri['Fn::GetAtt'][0];
      const fn = s.resource(area, functionId).Properties;
      expect(logicalId(s.binding(route.operation).fn.node.defaultChild)).toBe(functionId);
      expect(fn.MemorySize).toBe(route.memoryMb ?? defaultMemoryMb);
      expect(fn.Timeout).toBe(route.timeoutSeconds ?? defaultTimeoutSeconds);
    }
  });

  it('attaches the API-key authorizer to exactly the apiKey routes, and no authorizer to public and admin routes', () => {
    // Prepare
    const authorizerId = logicalId(s.stack.api.httpApi.node.findChild('ApiKeyAuthorizer').node.defaultChild);
    for (const route of routes) {
      // Act
      const area = s.area(route.area);
      const [props] = Object.values(
        s.template(area).findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: `${route.method} ${route.path}` } }),
      ).map((resource) => resource.Properties);
      // Assess
      if (route.auth === 'apiKey') {
        expect(props.AuthorizationType, route.operation).toBe('CUSTOM');
        expect(s.resolve(area, props.AuthorizerId)).toEqual({ Ref: authorizerId });
      } else {
        expect(props.AuthorizationType, route.operation).toBe('NONE');
        expect(props.AuthorizerId).toBeUndefined();
      }
    }
  });

  it('sends unknown paths to the fallback function through an unauthorized $default route', () => {
    // Act
    const [route] = Object.values(s.parent.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: '$default' } }));
    // Assess
    expect(route!.Properties.AuthorizationType).toBe('NONE');
    const integration = s.resource(s.stack, route!.Properties.Target['Fn::Join'][1][1].Ref);
    expect(integration.Properties.IntegrationUri['Fn::GetAtt'][0]).toBe(logicalId(s.stack.api.fallbackFunction.node.defaultChild));
  });

  it('lets the authorizer resolve identity itself: SIMPLE responses, no identity source, no cache, apiKeys read-only', () => {
    // Act
    const authorizer = s.fn(s.stack.api.authorizerFunction);
    // Assess
    s.parent.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      IdentitySource: [],
      AuthorizerResultTtlInSeconds: 0,
    });
    expect(allows(authorizer.statements, 'dynamodb:GetItem', tableArn(s, 'apiKeys'))).toBe(true);
    expect(authorizer.statements.flatMap((statement) => statement.actions)).not.toContain('dynamodb:PutItem');
    for (const other of tableNames.filter((name) => name !== 'apiKeys')) expect(mentions(authorizer.statements, tableArn(s, other)), other).toBe(false);
    expect(Object.keys(authorizer.props.Environment.Variables)).toContain(tableEnvVar('apiKeys'));
  });

  it('creates every table of functions/tables.ts with its keys, indexes, PITR, encryption, TTL and RETAIN', () => {
    for (const name of tableNames) {
      // Prepare
      const definition: Json = tables[name];
      // Act
      const table = s.resource(s.stack, logicalId(s.stack.data.tables[name].node.defaultChild));
      // Assess
      expect(table.DeletionPolicy, name).toBe('Retain');
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true });
      expect(table.Properties.KeySchema).toEqual([
        { AttributeName: keyName(definition.partitionKey), KeyType: 'HASH' },
        ...(definition.sortKey ? [{ AttributeName: keyName(definition.sortKey), KeyType: 'RANGE' }] : []),
      ]);
      expect(table.Properties.TimeToLiveSpecification).toEqual(definition.ttlAttribute ? { AttributeName: definition.ttlAttribute, Enabled: true } : undefined);
      const indexes = Object.entries<Json>(definition.indexes ?? {});
      expect(
        (table.Properties.GlobalSecondaryIndexes ?? []).map((index: Json) => [
          index.IndexName,
          index.KeySchema.map((key: Json) => key.AttributeName),
          index.Projection,
        ]),
      ).toEqual(
        indexes.map(([indexName, index]) => [
          indexName,
          [keyName(index.partitionKey), ...(index.sortKey ? [keyName(index.sortKey)] : [])],
          { ProjectionType: 'ALL' },
        ]),
      );
    }
  });

  it('lets getMe read users and count rate limits, with no statement on apiKeys', () => {
    // Act
    const getMe = s.fn(s.binding('getMe').fn);
    // Assess
    expect(allows(getMe.statements, 'dynamodb:GetItem', tableArn(s, 'users'))).toBe(true);
    expect(allows(getMe.statements, 'dynamodb:PutItem', tableArn(s, 'users'))).toBe(false);
    expect(allows(getMe.statements, 'dynamodb:UpdateItem', tableArn(s, 'rateLimits'))).toBe(true);
    expect(mentions(getMe.statements, tableArn(s, 'apiKeys'))).toBe(false);
    expect(getMe.props.Environment.Variables).not.toHaveProperty(tableEnvVar('apiKeys'));
    expect(getMe.props.Environment.Variables).not.toHaveProperty('ADMIN_KEY_SECRET_ARN');
  });

  it('lets the idempotent routes claim and keep answers in idempotencyKeys, and no other route touch it', () => {
    for (const operation of ['executeScript', 'restExecuteScript', 'runFlow', 'publishEvent', 'receiveWebhook', 'receiveResourceWebhook']) {
      // Act
      const { statements, props } = s.fn(s.binding(operation).fn);
      // Assess
      for (const action of ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
        expect(allows(statements, action, tableArn(s, 'idempotencyKeys')), `${operation} ${action}`).toBe(true);
      expect(props.Environment.Variables).toHaveProperty(tableEnvVar('idempotencyKeys'));
    }
    expect(mentions(s.fn(s.binding('getMe').fn).statements, tableArn(s, 'idempotencyKeys'))).toBe(false);
  });

  it('lets createUser write users, usernames and apiKeys and read the admin key secret', () => {
    // Act
    const createUser = s.fn(s.binding('createUser').fn);
    // Assess
    for (const name of ['users', 'usernames', 'apiKeys'] as const) {
      expect(allows(createUser.statements, 'dynamodb:PutItem', tableArn(s, name)), name).toBe(true);
      expect(createUser.props.Environment.Variables).toHaveProperty(tableEnvVar(name));
    }
    const secret = { Ref: logicalId(s.stack.security.adminKeySecret.node.defaultChild) };
    expect(allows(createUser.statements, 'secretsmanager:GetSecretValue', secret)).toBe(true);
    expect(s.resolve(createUser.scope, createUser.props.Environment.Variables.ADMIN_KEY_SECRET_ARN)).toEqual(secret);
    // An admin route is not counted per API key.
    expect(mentions(createUser.statements, tableArn(s, 'rateLimits'))).toBe(false);
  });

  it('lets executeScript, the REST execute and runFlow invoke their own function, where a run goes on past the answer', () => {
    for (const operation of ['executeScript', 'restExecuteScript', 'runFlow']) {
      // Act
      const { fn } = s.binding(operation);
      const { statements } = s.fn(fn);
      // Assess
      expect(allows(statements, 'lambda:InvokeFunction', { 'Fn::GetAtt': [logicalId(fn.node.defaultChild), 'Arn'] }), operation).toBe(true);
    }
    expect(allows(s.fn(s.binding('runFlow').fn).statements, 'dynamodb:PutItem', tableArn(s, 'eventDeliveries'))).toBe(true);
  });

  it('serves POST /mcp from its own function behind the authorizer, granted what its tools run: script runs (and their own background half) and installs', () => {
    // Act
    const { fn } = s.binding('serveMcp');
    const { statements } = s.fn(fn);
    const [route] = Object.values(s.template(s.area('agents')).findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: 'POST /mcp' } }));
    // Assess
    expect(route?.Properties.AuthorizationType).toBe('CUSTOM');
    expect(allows(statements, 'lambda:InvokeFunction', { 'Fn::GetAtt': [logicalId(fn.node.defaultChild), 'Arn'] })).toBe(true);
    expect(allows(statements, 'dynamodb:PutItem', tableArn(s, 'scriptExecutions'))).toBe(true);
    expect(allows(statements, 'dynamodb:PutItem', tableArn(s, 'resourceInstallations'))).toBe(true);
  });

  it('gives every function the shared settings: newest Node runtime, arm64, tracing, source maps, own log group', () => {
    // Prepare
    const functions = [
      s.stack.api.authorizerFunction,
      s.stack.api.fallbackFunction,
      s.stack.scriptResourceCall,
      ...s.stack.areas.flatMap((area) => area.bindings.map((b) => b.fn)),
    ];
    for (const fn of functions) {
      // Act
      const { scope, props } = s.fn(fn);
      // Assess
      expect(props.Runtime).toBe(latestNodeRuntime.name);
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.TracingConfig).toEqual({ Mode: 'Active' });
      expect(props.Environment.Variables).toMatchObject({ NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: 'platform' });
      expect(props.FunctionName).toBeUndefined();
      expect(s.resource(scope, props.LoggingConfig.LogGroup.Ref).Properties.RetentionInDays).toBeGreaterThan(0);
    }
    expect(latestNodeRuntime.name).toMatch(/^nodejs2\d\.x$/);
  });

  it("keeps every stack under CloudFormation's 500 resources, at seven resources per route", () => {
    for (const area of s.stack.areas) {
      // Act
      const resources = Object.keys(s.template(area).toJSON().Resources);
      // Assess
      // selfInvoke brings its own policy (see lib/grants.ts); a role whose grants outgrow IAM's inline size gets
      // CDK's overflow managed policies.
      const overflowPolicies = resources.filter((id) => /OverflowPolicy\d+/.test(id)).length;
      expect(resources.length, area.area).toBe(
        area.bindings.length * 7 + area.bindings.filter((binding) => binding.route.uses?.includes('selfInvoke')).length + overflowPolicies,
      );
    }
    expect(Object.keys(s.parent.toJSON().Resources).length).toBeLessThan(500);
  });

  it('builds templates in one CodeBuild project and routes its final states from the default bus to the build recorder', () => {
    // Act
    const projects = Object.entries(s.parent.findResources('AWS::CodeBuild::Project'));
    const rules = Object.values(s.parent.findResources('AWS::Events::Rule')).filter((rule) =>
      JSON.stringify(rule.Properties.EventPattern ?? {}).includes('aws.codebuild'),
    );
    const recorder = logicalId(s.stack.templateBuilds.stateFunction!.node.defaultChild);
    // Assess
    expect(projects).toHaveLength(1);
    const [projectId, project] = projects[0]!;
    expect(project.Properties).toMatchObject({
      TimeoutInMinutes: 10,
      Artifacts: { Type: 'NO_ARTIFACTS' },
      Environment: { EnvironmentVariables: expect.arrayContaining([expect.objectContaining({ Name: 'PAGES_BUCKET' })]) },
    });
    expect(project.Properties.Source.BuildSpec).toContain('git fetch --depth 1 --no-tags');
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties.EventBusName).toBeUndefined();
    expect(rules[0]!.Properties.EventPattern).toEqual({
      source: ['aws.codebuild'],
      'detail-type': ['CodeBuild Build State Change'],
      detail: { 'project-name': [{ Ref: projectId }], 'build-status': ['SUCCEEDED', 'FAILED', 'FAULT', 'STOPPED', 'TIMED_OUT'] },
    });
    expect(rules[0]!.Properties.Targets[0]).toMatchObject({ Arn: { 'Fn::GetAtt': [recorder, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 4 } });
    expect(s.parent.toJSON().Resources[recorder].Properties.Environment.Variables).toMatchObject({
      TEMPLATE_BUILD_PROJECT: { Ref: projectId },
      TABLE_TEMPLATE_BUILDS: expect.anything(),
    });
  });

  it("runs a template's build command without credentials or network, and publishes with a role scoped per build to its own prefixes", () => {
    // Prepare
    const { project, publishRole } = s.stack.templateBuilds;
    const bucket = { 'Fn::GetAtt': [logicalId(s.stack.storage.pagesBucket.node.defaultChild), 'Arn'] };
    const roleId = (role: unknown) => logicalId((role as Role).node.defaultChild);
    const statementsOf = (role: unknown) =>
      Object.values(s.parent.findResources('AWS::IAM::Policy'))
        .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(JSON.stringify({ Ref: roleId(role) })))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
    // Act
    const props = s.resource(s.stack, logicalId(project.node.defaultChild)).Properties;
    const buildSpec = String(templateBuildSpec().phases.build.commands[0]);
    const trust = s.resource(s.stack, roleId(publishRole)).Properties.AssumeRolePolicyDocument.Statement as Json[];
    // Assess
    expect(JSON.stringify(statementsOf(project.role))).not.toMatch(/"s3:/);
    expect(statementsOf(project.role).some((statement) => [statement.Action].flat().includes('sts:AssumeRole'))).toBe(false);
    expect(trust).toEqual([expect.objectContaining({ Action: 'sts:AssumeRole', Principal: { AWS: { 'Fn::GetAtt': [roleId(project.role), 'Arn'] } } })]);
    expect(
      statementsOf(publishRole).some(
        (statement) => [statement.Action].flat().includes('s3:PutObject') && JSON.stringify(statement.Resource).includes(JSON.stringify(bucket)),
      ),
    ).toBe(true);
    expect(props.Environment.PrivilegedMode).toBe(true);
    expect(buildSpec).toMatch(/docker run --rm --network none --user 1000:1000 --cap-drop ALL[^\n]* sh -c "\$BUILD_COMMAND"/);
    expect(buildSpec.indexOf('sh -c "$BUILD_COMMAND"')).toBeLessThan(buildSpec.indexOf('aws sts assume-role'));
    expect(buildSpec.indexOf('aws sts assume-role')).toBeLessThan(buildSpec.indexOf('aws s3 sync'));
  });

  it("scopes a build's publishing session to its own site, staging and manifest prefixes (the buildspec's policy, run through jq)", () => {
    // Prepare
    const line = String(templateBuildSpec().phases.build.commands[0])
      .split('\n')
      .find((command) => command.startsWith('SCOPE='))!;
    const env = { PATH: process.env.PATH!, PAGES_BUCKET_ARN: 'arn:aws:s3:::pages', TEMPLATE_SUBDOMAIN: 'site-abc', PLATFORM_BUILD_ID: 'bld_1' };
    // Act
    const policy = JSON.parse(execFileSync('bash', ['-c', `${line}; printf %s "$SCOPE"`], { env, encoding: 'utf8' }));
    // Assess
    expect(policy.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        Resource: ['arn:aws:s3:::pages/site-abc/*', 'arn:aws:s3:::pages/_builds/bld_1/*', 'arn:aws:s3:::pages/_meta/bld_1/*'],
      },
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: 'arn:aws:s3:::pages',
        Condition: { StringLike: { 's3:prefix': ['site-abc/*', '_builds/bld_1/*'] } },
      },
    ]);
  });

  it('puts each bus consumer behind its own rule on the platform bus, with retries and the dead-letter queue', () => {
    // Act
    const nested = s.template(s.stack.consumers);
    const rules = Object.values(nested.findResources('AWS::Events::Rule'));
    // Assess
    expect(Object.keys(nested.findResources('AWS::Lambda::Function'))).toHaveLength(busConsumers.length);
    expect(rules).toHaveLength(busConsumers.length);
    for (const [index, rule] of rules.entries()) {
      expect(rule.Properties.EventPattern).toEqual({
        source: [{ prefix: 'platform.' }],
        'detail-type': [...(busConsumers[index]!.userEvents ? [{ 'anything-but': { prefix: 'platform.' } }] : []), ...busConsumers[index]!.internalTypes],
      });
      expect(rule.Properties.Targets[0]).toMatchObject({ RetryPolicy: { MaximumRetryAttempts: 4 }, DeadLetterConfig: { Arn: expect.anything() } });
    }
  });

  it('puts user events behind exactly one rule of the platform bus: one Lambda invocation per user event', () => {
    // Act
    const nested = s.template(s.stack.consumers);
    const rules = Object.values(nested.findResources('AWS::Events::Rule'));
    const userEventRules = rules.filter((rule) =>
      (rule.Properties.EventPattern['detail-type'] as unknown[]).some((value) => typeof value === 'object' && value !== null && 'anything-but' in value),
    );
    const internalTypes = rules.flatMap((rule) => (rule.Properties.EventPattern['detail-type'] as unknown[]).filter((value) => typeof value === 'string'));
    // Assess
    expect(userEventRules).toHaveLength(1);
    expect(new Set(internalTypes).size).toBe(internalTypes.length);
  });

  it('names the event bus and schedule group after the stack and exports the four outputs', () => {
    // Assess
    s.parent.hasResourceProperties('AWS::Events::EventBus', { Name: 'PlatformStack-events' });
    s.parent.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'PlatformStack' });
    expect(Object.keys(s.parent.toJSON().Outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'PagesUrl', 'AdminKeySecretArn', 'EventBusName']));
    s.parent.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('serves pages through CloudFront with Origin Access Control and the pages router on viewer requests', () => {
    // Assess
    s.parent.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: pagesRouterCode(undefined),
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
    s.parent.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    s.parent.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          FunctionAssociations: [Match.objectLike({ EventType: 'viewer-request' })],
          ViewerProtocolPolicy: 'redirect-to-https',
        }),
        Logging: Match.objectLike({ Prefix: 'cloudfront/' }),
      }),
    });
  });

  it('keeps the vectors of large document graphs in one S3 Vectors index, granted to the functions that write or search documents only', () => {
    // Prepare
    const indexArn = { 'Fn::GetAtt': [logicalId(s.stack.documentVectors.index), 'IndexArn'] };
    const vectorActions = ['s3vectors:PutVectors', 's3vectors:GetVectors', 's3vectors:QueryVectors', 's3vectors:DeleteVectors'];
    // serveMcp searches documents for the MCP tool documents.search.
    const writers = ['uploadDocument', 'completeUpload', 'deleteDocument', 'shareDocument', 'unshareDocument', 'searchDocuments', 'serveMcp'];
    // Act
    const [index] = Object.values(s.parent.findResources('AWS::S3Vectors::Index'));
    const buckets = Object.values(s.parent.findResources('AWS::S3Vectors::VectorBucket'));
    const granted = routes.filter((route) => {
      const fn = s.fn(s.binding(route.operation).fn);
      return vectorActions.every((action) => allows(fn.statements, action, indexArn)) && fn.props.Environment.Variables.DOCUMENT_VECTOR_INDEX_ARN !== undefined;
    });
    // Assess
    expect(buckets).toHaveLength(1);
    expect(index!.Properties).toMatchObject({
      DataType: 'float32',
      Dimension: 512,
      DistanceMetric: 'cosine',
      MetadataConfiguration: { NonFilterableMetadataKeys: ['documentId', 'position'] },
    });
    expect(index!.DeletionPolicy).toBe('Retain');
    expect(granted.map((route) => route.operation).sort()).toEqual([...writers].sort());
    expect(allows(s.fn(s.binding('searchDocuments').fn).statements, 'dynamodb:Query', tableArn(s, 'graphTerms'))).toBe(true);
  });

  it('passes the cdk-nag AwsSolutions checks (parent and nested stacks) with no unsuppressed error or warning', () => {
    // Act
    const annotations = Annotations.fromStack(s.stack);
    // Assess
    expect(describeMessages(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')))).toEqual([]);
    expect(describeMessages(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')))).toEqual([]);
  });

  describe('package installers', () => {
    const installerArns = () =>
      [s.stack.packageInstallers.npm, s.stack.packageInstallers.pip].map((fn) => ({ 'Fn::GetAtt': [logicalId(fn.node.defaultChild), 'Arn'] }));

    it('gives each installer its logs and the installed trees of the script-packages bucket, nothing else, within the API budget', () => {
      // Prepare
      const trees = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalId(s.stack.storage.scriptPackagesBucket.node.defaultChild), 'Arn'] }, '/script-deps/*']] };
      for (const installer of [s.stack.packageInstallers.npm, s.stack.packageInstallers.pip]) {
        // Act
        const { props, statements } = s.fn(installer);
        // Assess
        const granted = statements.filter((statement) => !statement.actions.every((action) => action.startsWith('logs:') || action.startsWith('xray:')));
        expect(granted, installer.node.id).toEqual([{ actions: ['s3:GetObject', 's3:PutObject'], resources: [trees] }]);
        expect(props.Timeout).toBeLessThan(defaultTimeoutSeconds);
        expect(props.ReservedConcurrentExecutions).toBe(10);
        expect(props.Environment.Variables).toMatchObject({ PACKAGE_INSTALL_TIMEOUT_SECONDS: String(installerTimeLimitSeconds) });
        expect(Object.keys(props.Environment.Variables)).toContain('SCRIPT_PACKAGES_BUCKET');
      }
      expect(s.fn(s.stack.packageInstallers.pip).props).toMatchObject({ Runtime: 'python3.13', Handler: 'pip_installer.handler' });
      expect(installerTimeLimitSeconds).toBeLessThan(npmInstallerFunction.timeoutSeconds!);
    });

    it('lets exactly the functions that create versions invoke the installers, and only them', () => {
      // Prepare
      const bindings = s.stack.areas.flatMap((area) => area.bindings);
      // Act
      const invokers = bindings.filter((binding) => installerArns().some((arn) => allows(s.fn(binding.fn).statements, 'lambda:InvokeFunction', arn)));
      const consumers = s.stack.consumers.bindings.filter((binding) => installerArns().some((arn) => mentions(s.fn(binding.fn).statements, arn)));
      // Assess
      expect(invokers.map((binding) => binding.route.operation).sort()).toEqual([
        'createScript',
        'createVersion',
        'modifyFlowScript',
        'restCreateScript',
        'restCreateVersion',
        'restUpdateScript',
      ]);
      expect(consumers).toEqual([]);
      for (const { fn } of invokers) {
        const invoke = s.fn(fn).statements.filter((statement) => installerArns().some((arn) => mentions([statement], arn)));
        expect(invoke).toEqual([{ actions: ['lambda:InvokeFunction'], resources: installerArns() }]);
      }
      expect(
        Object.values(s.parent.findResources('AWS::Lambda::Permission')).filter((permission) =>
          installerArns().some((arn) => JSON.stringify(permission.Properties.FunctionName).includes(arn['Fn::GetAtt'][0]!)),
        ),
      ).toEqual([]);
    });
  });

  describe('resource calls of Lambda-deployed scripts', () => {
    const ref = (construct: { node: { defaultChild?: unknown } }) => ({ Ref: logicalId(construct.node.defaultChild) });
    const resourceCallArn = () => ({ 'Fn::GetAtt': [logicalId(s.stack.scriptResourceCall.node.defaultChild), 'Arn'] });

    it('bounds every script role to writing script logs and invoking the resource-call function, nothing else', () => {
      // Prepare
      const boundary = s.resource(s.stack, logicalId(s.stack.scripts.roleBoundary.node.defaultChild));
      // Act
      const statements = boundary.Properties.PolicyDocument.Statement as Json[];
      // Assess
      expect(statements.flatMap((statement) => [statement.Action].flat()).sort()).toEqual([
        'lambda:InvokeFunction',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]);
      expect(statements.find((statement) => statement.Action === 'lambda:InvokeFunction')!.Resource).toEqual(resourceCallArn());
    });

    it("tells every function that runs or deploys scripts the resource-call function's name and lets it read the grant key", () => {
      // Prepare
      const secret = ref(s.stack.security.scriptGrantKeySecret);
      const runners = [
        ...s.stack.areas
          .flatMap((area) => area.bindings)
          .filter((binding) => binding.route.uses?.includes('scriptFunctions'))
          .map((binding) => binding.fn),
        ...s.stack.consumers.bindings.filter((binding) => binding.consumer.uses?.includes('scriptFunctions')).map((binding) => binding.fn),
      ];
      const others = s.stack.areas
        .flatMap((area) => area.bindings)
        .filter((binding) => !binding.route.uses?.includes('scriptFunctions'))
        .map((binding) => binding.fn);
      for (const fn of runners) {
        // Act
        const { scope, props, statements } = s.fn(fn);
        // Assess
        expect(s.resolve(scope, props.Environment.Variables.RESOURCE_CALL_FUNCTION)).toEqual(ref(s.stack.scriptResourceCall));
        expect(s.resolve(scope, props.Environment.Variables.SCRIPT_GRANT_SECRET_ARN)).toEqual(secret);
        expect(allows(statements, 'secretsmanager:GetSecretValue', secret)).toBe(true);
        expect(statements.flatMap((statement) => statement.actions)).not.toContain('lambda:PutFunctionConcurrency');
      }
      expect(runners.map((fn) => fn.node.id)).toEqual(expect.arrayContaining(['executeScript', 'restExecuteScript', 'dispatchEvent', 'runFlows']));
      for (const fn of others) expect(s.fn(fn).props.Environment.Variables, fn.node.id).not.toHaveProperty('RESOURCE_CALL_FUNCTION');
    });

    it("lets the functions that deploy and delete scripts publish and delete dependency layers under the stack's prefix only", () => {
      // Prepare
      const layers = (name: string) => ({
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':lambda:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:layer:${name}`]],
      });
      const prefix = `${s.stack.stackName}-script-deps-*`;
      const bindings = s.stack.areas.flatMap((area) => area.bindings);
      // Act
      const deleters = bindings.filter((binding) => s.fn(binding.fn).statements.some((statement) => statement.actions.includes('lambda:DeleteLayerVersion')));
      // Assess
      expect(deleters.map((binding) => binding.route.operation)).toEqual(expect.arrayContaining(['deleteScript', 'restDeleteScript']));
      for (const { route, fn } of deleters) {
        expect(route.uses, route.operation).toContain('scriptFunctions');
        const granted = s.fn(fn).statements.filter((statement) => statement.actions.includes('lambda:DeleteLayerVersion'));
        expect(granted, route.operation).toEqual([
          {
            actions: ['lambda:DeleteLayerVersion', 'lambda:GetLayerVersion', 'lambda:ListLayerVersions', 'lambda:PublishLayerVersion'],
            resources: [layers(prefix), layers(`${prefix}:*`)],
          },
        ]);
      }
    });

    it("grants the resource-call function the call route's tables and key, the run tally and the grant key, and no script functions", () => {
      // Prepare
      const callRoute = s.binding('callResource').route;
      // Act
      const { props, statements } = s.fn(s.stack.scriptResourceCall);
      // Assess
      for (const name of [...Object.keys(callRoute.tables!), 'scriptCounters'] as (keyof typeof tables)[]) {
        expect(props.Environment.Variables, name).toHaveProperty(tableEnvVar(name));
      }
      expect(allows(statements, 'dynamodb:UpdateItem', tableArn(s, 'scriptCounters'))).toBe(true);
      expect(allows(statements, 'dynamodb:UpdateItem', tableArn(s, 'resourceInstallations'))).toBe(true);
      expect(allows(statements, 'kms:Decrypt', { 'Fn::GetAtt': [logicalId(s.stack.security.credentialsKey.node.defaultChild), 'Arn'] })).toBe(true);
      expect(allows(statements, 'secretsmanager:GetSecretValue', ref(s.stack.security.scriptGrantKeySecret))).toBe(true);
      expect(mentions(statements, tableArn(s, 'scriptExecutions'))).toBe(false);
      expect(statements.flatMap((statement) => statement.actions)).not.toEqual(expect.arrayContaining(['lambda:CreateFunction']));
      expect(props.Environment.Variables).not.toHaveProperty('SCRIPT_ROLE_BOUNDARY_ARN');
      expect(props.Environment.Variables).toHaveProperty('ALLOW_PRIVATE_UPSTREAMS', 'false');
      expect(props.Timeout).toBe(scriptResourceCallFunction.timeoutSeconds);
      // Invoked directly by script functions: no API route or other service may invoke it.
      const permissions = Object.values(s.parent.findResources('AWS::Lambda::Permission')).map((permission) =>
        JSON.stringify(permission.Properties.FunctionName),
      );
      expect(permissions.filter((target) => target.includes(logicalId(s.stack.scriptResourceCall.node.defaultChild)))).toEqual([]);
    });
  });
});

describe('infra: capability grants', () => {
  // What each capability must bring: an environment variable and one action it allows. A Record, so a new capability needs a row.
  const expected: Record<Capability, { env: string[]; action: string }> = {
    adminSecret: { env: ['ADMIN_KEY_SECRET_ARN'], action: 'secretsmanager:GetSecretValue' },
    credentialsKey: { env: ['CREDENTIALS_KEY_ARN'], action: 'kms:GenerateDataKey' },
    eventBus: { env: ['EVENT_BUS_NAME'], action: 'events:PutEvents' },
    scheduler: { env: ['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN'], action: 'scheduler:CreateSchedule' },
    documentsBucket: { env: ['DOCUMENTS_BUCKET'], action: 's3:PutObject' },
    pagesBucket: { env: ['PAGES_BUCKET', 'PAGES_BASE_URL'], action: 's3:PutObject' },
    scriptFunctions: {
      env: ['SCRIPT_ROLE_BOUNDARY_ARN', 'SCRIPT_FUNCTION_PREFIX', 'SCRIPT_RUNTIME_LAYER_ARN', 'RESOURCE_CALL_FUNCTION', 'SCRIPT_GRANT_SECRET_ARN'],
      action: 'lambda:PublishVersion',
    },
    scriptGrantKey: { env: ['SCRIPT_GRANT_SECRET_ARN'], action: 'secretsmanager:GetSecretValue' },
    scriptPackages: { env: ['SCRIPT_PACKAGES_BUCKET'], action: 's3:PutObject' },
    packageInstallers: { env: ['NPM_INSTALLER_FUNCTION', 'PIP_INSTALLER_FUNCTION'], action: 'lambda:InvokeFunction' },
    platformWallet: { env: ['PLATFORM_WALLET_SECRET_ARN'], action: 'secretsmanager:GetSecretValue' },
    feePayer: { env: ['FEE_PAYER_SECRET_ARN'], action: 'secretsmanager:GetSecretValue' },
    payoutRunner: { env: ['PAYOUT_FUNCTION_NAME'], action: 'lambda:InvokeFunction' },
    embeddings: { env: ['EMBEDDING_MODEL_ID'], action: 'bedrock:InvokeModel' },
    documentVectors: { env: ['DOCUMENT_VECTOR_INDEX_ARN'], action: 's3vectors:QueryVectors' },
    // The probe's model is an OpenAI-compatible endpoint's: its key, and no Bedrock grant (infra: operations tests Bedrock's).
    llm: { env: ['LLM_PROVIDER', 'LLM_MODEL', 'LLM_BASE_URL', 'LLM_API_KEY_SECRET_ARN'], action: 'secretsmanager:GetSecretValue' },
    pythonLint: { env: ['PYTHON_LINT_FUNCTION'], action: 'lambda:InvokeFunction' },
    selfInvoke: { env: [], action: 'lambda:InvokeFunction' },
    templateBuilds: { env: ['TEMPLATE_BUILD_PROJECT', 'TEMPLATE_BUILD_LOG_GROUP', 'PAGES_BUCKET'], action: 'codebuild:StartBuild' },
  };
  const probe = (operation: string, uses: Capability[]): Route => ({
    operation,
    area: 'probe',
    method: 'POST',
    path: `/probe/${operation}`,
    auth: 'public',
    summary: 'probe',
    uses,
    handler: routes.find((route) => route.operation === 'getHealth')!.handler,
  });
  const llmKeySecretArn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:llm-api-key-AbCdEf';
  let s: Synthesized;

  beforeAll(() => {
    // Prepare
    const capabilities = Object.keys(expected) as Capability[];
    const app = appWithoutBundling(false);
    const stack = new PlatformStack(app, 'ProbeStack', {
      routes: [probe('nothing', []), ...capabilities.map((capability) => probe(capability, [capability]))],
      llm: { provider: 'openai', model: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1', apiKeySecretArn: llmKeySecretArn },
    });
    Aspects.of(app).add(new AwsSolutionsChecks());
    // Act
    s = new Synthesized(stack);
  });

  it('turns each capability into its grant and its environment, and nothing into nothing', () => {
    const nothing = s.fn(s.binding('nothing').fn);
    for (const [capability, { env, action }] of Object.entries(expected)) {
      // Act
      const fn = s.fn(s.binding(capability).fn);
      // Assess
      expect(Object.keys(fn.props.Environment.Variables), capability).toEqual(expect.arrayContaining(env));
      expect(
        fn.statements.flatMap((statement) => statement.actions),
        capability,
      ).toContain(action);
      expect(nothing.statements.flatMap((statement) => statement.actions)).not.toContain(action);
    }
  });

  it('gives the language model settings and its API key secret to the functions that use llm, and to no other', () => {
    // Act
    const [llm, nothing] = [s.fn(s.binding('llm').fn), s.fn(s.binding('nothing').fn)];
    const readers = Object.keys(expected).filter((capability) => JSON.stringify(s.fn(s.binding(capability).fn).statements).includes(llmKeySecretArn));
    // Assess
    expect(llm.props.Environment.Variables).toMatchObject({
      LLM_PROVIDER: 'openai',
      LLM_MODEL: 'gpt-4o-mini',
      LLM_BASE_URL: 'https://api.openai.com/v1',
      LLM_API_KEY_SECRET_ARN: llmKeySecretArn,
    });
    expect(llm.statements).toContainEqual(expect.objectContaining({ actions: ['secretsmanager:GetSecretValue'], resources: [llmKeySecretArn] }));
    expect(Object.keys(nothing.props.Environment.Variables).filter((name) => name.startsWith('LLM_'))).toEqual([]);
    expect(readers).toEqual(['llm']);
  });

  it('passes the schedule and script roles only with their own capability', () => {
    // Act
    const passRoleHolders = Object.keys(expected).filter((capability) =>
      s.fn(s.binding(capability).fn).statements.some((statement) => statement.actions.includes('iam:PassRole')),
    );
    // Assess
    expect(passRoleHolders.sort()).toEqual(['scheduler', 'scriptFunctions']);
  });

  it('has a scoped cdk-nag suppression for every wildcard a capability needs', () => {
    // Act
    const errors = Annotations.fromStack(s.stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    // Assess
    expect(describeMessages(errors)).toEqual([]);
  });
});

describe('infra: pages router (CloudFront Function)', () => {
  type Result = { uri?: string; statusCode?: number; headers?: Record<string, { value: string }> };
  const router = (pagesDomain?: string) => {
    const handler = new Function(`${pagesRouterCode(pagesDomain)}\nreturn handler;`)() as (event: object) => Result;
    return (host: string, uri: string) => handler({ request: { uri, headers: { host: { value: host } } } });
  };

  it('maps <sub>.<pagesDomain> to the S3 prefix <sub>/ and completes directory paths with index.html', () => {
    // Prepare
    const route = router('pages.example.com');
    // Act
    const results = [route('shop.pages.example.com', '/'), route('Shop.Pages.Example.com', '/about'), route('shop.pages.example.com', '/assets/app.js')];
    // Assess
    expect(results.map((result) => result.uri)).toEqual(['/shop/index.html', '/shop/about/index.html', '/shop/assets/app.js']);
  });

  it('maps /pages/<sub>/ on any host to the same prefix, and redirects /pages/<sub> to its trailing slash', () => {
    // Prepare
    const route = router(undefined);
    // Act
    const page = route('d111.cloudfront.net', '/pages/shop/docs/');
    const bare = route('d111.cloudfront.net', '/pages/shop');
    // Assess
    expect(page.uri).toBe('/shop/docs/index.html');
    expect(bare.statusCode).toBe(301);
    expect(bare.headers?.location?.value).toBe('/pages/shop/');
  });

  it('answers 404 for other hosts and paths, nested subdomains and labels that are not DNS labels', () => {
    // Prepare
    const route = router('pages.example.com');
    // Act
    const results = [
      route('d111.cloudfront.net', '/shop/index.html'),
      route('a.b.pages.example.com', '/'),
      route('pages.example.com', '/'),
      route('d111.cloudfront.net', '/pages/-bad-/'),
      route('d111.cloudfront.net', '/pages/../secret'),
    ];
    // Assess
    expect(results.map((result) => result.statusCode)).toEqual([404, 404, 404, 404, 404]);
  });
});
