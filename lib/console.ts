// The web console on AWS: its static files (console/, built by esbuild while synthesizing) in a private S3 bucket
// behind a CloudFront distribution of its own, which also sends /api/* to the HTTP API, so the console calls the API
// on its own origin (no CORS). A nested stack of its own: the deployment's copy function stays out of the parent.
import { Duration, DockerImage, Fn, NestedStack, RemovalPolicy } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { buildConsoleSync } from '../console/build.js';

export interface ConsoleProps {
  /** The HTTP API's URL (https://<id>.execute-api.<region>.amazonaws.com/): /api/* goes there. */
  apiUrl: string;
}

const consoleDir = fileURLToPath(new URL('../console/', import.meta.url));

export class Console extends NestedStack {
  readonly bucket: Bucket;
  readonly logsBucket: Bucket;
  readonly distribution: Distribution;
  readonly deployment: BucketDeployment;
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleProps) {
    super(scope, id, { description: 'Web console: static files on S3 behind CloudFront' });
    const privateBucket = { encryption: BucketEncryption.S3_MANAGED, enforceSSL: true, blockPublicAccess: BlockPublicAccess.BLOCK_ALL } as const;
    this.logsBucket = new Bucket(this, 'AccessLogs', {
      ...privateBucket,
      // CloudFront standard logging writes with ACLs.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.bucket = new Bucket(this, 'Files', {
      ...privateBucket,
      serverAccessLogsBucket: this.logsBucket,
      serverAccessLogsPrefix: 'files/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const apiDomain = Fn.select(2, Fn.split('/', props.apiUrl));
    // The managed SecurityHeadersPolicy allows same-origin framing; the console is framed by no page at all.
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Web console: no framing, plus the managed security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: "frame-ancestors 'none'", override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: false },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), override: false },
        xssProtection: { protection: true, modeBlock: true, override: false },
      },
    });
    const toApi = {
      origin: new HttpOrigin(apiDomain, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY }),
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Web console and its API',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
      },
      // The MCP server too: agents and the console's "Connect an agent" page reach it at the console's address.
      additionalBehaviors: { '/api/*': toApi, '/mcp': toApi },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: this.logsBucket,
      logFilePrefix: 'cloudfront/',
    });
    this.deployment = new BucketDeployment(this, 'Deploy', {
      destinationBucket: this.bucket,
      sources: [
        Source.asset(consoleDir, {
          exclude: ['dist'],
          bundling: {
            // Only used when local bundling is impossible; esbuild runs in this process otherwise.
            image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:20'),
            local: {
              tryBundle: (outputDir) => {
                buildConsoleSync(outputDir);
                return true;
              },
            },
          },
        }),
      ],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    this.suppressNagFindings();
  }

  private suppressNagFindings() {
    NagSuppressions.addResourceSuppressions(this.logsBucket, [
      { id: 'AwsSolutions-S1', reason: "This bucket receives the console's access logs; logging it into itself would loop." },
    ]);
    NagSuppressions.addResourceSuppressions(this.distribution, [
      { id: 'AwsSolutions-CFR1', reason: 'The console is for users worldwide; no country is excluded.' },
      {
        id: 'AwsSolutions-CFR2',
        reason: 'Static files plus the HTTP API, whose every route authenticates and rate-limits; a WAF web ACL is left to the deployment.',
      },
      { id: 'AwsSolutions-CFR4', reason: 'The default *.cloudfront.net certificate, whose minimum protocol CloudFront fixes.' },
    ]);
    // The copy function belongs to CDK's BucketDeployment: its runtime, managed policy and object wildcards are CDK's.
    const copier = this.node.findAll().filter((construct) => construct.node.id.startsWith('Custom::CDKBucketDeployment'));
    NagSuppressions.addResourceSuppressions(
      copier,
      [
        { id: 'AwsSolutions-IAM4', reason: "CDK BucketDeployment's function uses AWSLambdaBasicExecutionRole for its logs." },
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'CDK BucketDeployment copies every object of the asset into the console bucket and invalidates the distribution: object and prefix wildcards of those two buckets only.',
        },
        { id: 'AwsSolutions-L1', reason: "The runtime of CDK BucketDeployment's function is chosen by aws-cdk-lib." },
      ],
      true,
    );
  }
}
