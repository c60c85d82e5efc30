// The web console's AWS side (lib/console.ts): files in a private bucket behind CloudFront, /api/* to the HTTP API,
// the bundle built by esbuild while synthesizing, and cdk-nag clean.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleSync } from '../../console/build.js';
import { Console } from '../../lib/console.js';
import { type Json, appWithoutBundling, describeMessages } from './synthesized.js';

describe('infra: the web console', () => {
  let parent: Stack;
  let template: Template;

  beforeAll(() => {
    // Prepare
    const app = appWithoutBundling();
    parent = new Stack(app, 'Parent');
    const webConsole = new Console(parent, 'Console', { apiUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/' });
    Aspects.of(app).add(new AwsSolutionsChecks());
    // Act
    template = Template.fromStack(webConsole);
  });

  it('serves index.html from a private bucket through Origin Access Control, over HTTPS only', () => {
    // Act
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig as Json;
    // Assess
    expect(distribution.DefaultRootObject).toBe('index.html');
    expect(distribution.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(distribution.Origins.find((origin: Json) => origin.S3OriginConfig)?.OriginAccessControlId).toBeDefined();
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'files/' }),
    });
  });

  it("lets no page frame the console: frame-ancestors 'none' and X-Frame-Options DENY on its files", () => {
    // Act
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig as Json;
    const [policyId, policy] = Object.entries(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0]!;
    const security = (policy.Properties as Json).ResponseHeadersPolicyConfig.SecurityHeadersConfig as Json;
    // Assess
    expect(distribution.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    expect(security.ContentSecurityPolicy).toEqual({ ContentSecurityPolicy: "frame-ancestors 'none'", Override: true });
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(security.ContentTypeOptions).toEqual({ Override: true });
  });

  it('sends /api/* uncached, with every method, headers and query, to the HTTP API on the same origin', () => {
    // Act
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig as Json;
    const api = distribution.CacheBehaviors.find((behavior: Json) => behavior.PathPattern === '/api/*') as Json;
    const origin = distribution.Origins.find((candidate: Json) => candidate.Id === api.TargetOriginId) as Json;
    // Assess
    expect(api.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS']));
    expect(api.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // CachingDisabled
    expect(api.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // AllViewerExceptHostHeader
    expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    expect(origin.DomainName).toBe('abc123.execute-api.us-east-1.amazonaws.com');
  });

  it('sends /mcp to the HTTP API as it sends /api/*: the MCP server at the console address', () => {
    // Act
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig as Json;
    const behaviorOf = (pattern: string) => distribution.CacheBehaviors.find((behavior: Json) => behavior.PathPattern === pattern) as Json;
    // Assess
    expect(behaviorOf('/mcp')).toEqual({ ...behaviorOf('/api/*'), PathPattern: '/mcp' });
  });

  it('copies the built console into the bucket and invalidates the distribution on every deployment', () => {
    // Act
    const deployments = Object.values(template.findResources('Custom::CDKBucketDeployment')) as Json[];
    // Assess
    expect(deployments).toHaveLength(1);
    expect(deployments[0]!.Properties.DistributionPaths).toEqual(['/*']);
  });

  it('passes the cdk-nag AwsSolutions checks with no unsuppressed error or warning', () => {
    // Act
    // Messages of a nested stack are reported on its parent's artifact.
    const annotations = Annotations.fromStack(parent);
    // Assess
    expect(describeMessages(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')))).toEqual([]);
    expect(describeMessages(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')))).toEqual([]);
  });

  it('bundles the console the way synthesizing does: an index.html that loads the app script', () => {
    // Prepare
    const outDir = mkdtempSync(join(tmpdir(), 'console-bundle-'));
    // Act
    buildConsoleSync(outDir);
    // Assess
    expect(readFileSync(join(outDir, 'index.html'), 'utf8')).toContain('src="app.js"');
    expect(existsSync(join(outDir, 'app.js'))).toBe(true);
    expect(existsSync(join(outDir, 'app.css'))).toBe(true);
  });
});
