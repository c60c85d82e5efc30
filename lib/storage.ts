// S3 for documents and template pages; CloudFront (Origin Access Control) serves the pages.
import { Annotations, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, type BucketProps, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { pagesRouterCode } from './pages-router.js';

export interface StorageProps {
  /** Sites answer at `<sub>.<pagesDomain>` as well as at `/pages/<sub>/`. */
  pagesDomain?: string;
  /** ACM certificate (us-east-1) for `*.<pagesDomain>`; CloudFront only answers a host it holds a certificate for. */
  pagesCertificateArn?: string;
}

const privateBucket: BucketProps = {
  encryption: BucketEncryption.S3_MANAGED,
  enforceSSL: true,
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  removalPolicy: RemovalPolicy.RETAIN,
};

export class Storage extends Construct {
  readonly accessLogsBucket: Bucket;
  readonly documentsBucket: Bucket;
  readonly scriptPackagesBucket: Bucket;
  readonly pagesBucket: Bucket;
  readonly distribution: Distribution;
  /** `<pagesBaseUrl>/<sub>/` is a site's path-form address. */
  readonly pagesBaseUrl: string;
  readonly hasCustomCertificate: boolean;

  constructor(scope: Construct, id: string, props: StorageProps = {}) {
    super(scope, id);
    this.accessLogsBucket = new Bucket(this, 'AccessLogs', {
      ...privateBucket,
      // CloudFront standard logging writes with ACLs; S3 server access logging uses the bucket policy.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    });
    this.documentsBucket = new Bucket(this, 'Documents', {
      ...privateBucket,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'documents/',
    });
    this.scriptPackagesBucket = new Bucket(this, 'ScriptPackages', {
      ...privateBucket,
      // Durable runs' large step results: kept as long as their journal (90 days past a wait of up to a year).
      lifecycleRules: [{ prefix: 'journal/', expiration: Duration.days(365 + 90 + 5) }],
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'script-packages/',
    });
    this.pagesBucket = new Bucket(this, 'Pages', {
      ...privateBucket,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'pages/',
    });

    const router = new CloudFrontFunction(this, 'PagesRouter', {
      comment: 'Maps <sub>.<pagesDomain> and /pages/<sub>/ to the S3 prefix <sub>/',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(pagesRouterCode(props.pagesDomain)),
    });
    const domain = props.pagesDomain && props.pagesCertificateArn ? props.pagesDomain : undefined;
    this.hasCustomCertificate = domain !== undefined;
    if (props.pagesDomain && !domain) {
      Annotations.of(this).addWarningV2(
        'platform:pagesDomainWithoutCertificate',
        `pagesDomain ${props.pagesDomain} is set without pagesCertificateArn: only /pages/<sub>/ answers until a certificate for *.${props.pagesDomain} is given`,
      );
    }
    this.distribution = new Distribution(this, 'PagesDistribution', {
      comment: 'Template pages',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.pagesBucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        functionAssociations: [{ eventType: FunctionEventType.VIEWER_REQUEST, function: router }],
        // Short default TTL: a rebuilt template shows up within minutes without an invalidation.
        cachePolicy: new CachePolicy(this, 'PagesCache', {
          comment: 'Template pages: origin Cache-Control wins, 5 minutes by default',
          defaultTtl: Duration.minutes(5),
          minTtl: Duration.seconds(0),
          maxTtl: Duration.days(1),
          enableAcceptEncodingGzip: true,
          enableAcceptEncodingBrotli: true,
        }),
      },
      ...(domain && {
        domainNames: [`*.${domain}`],
        certificate: Certificate.fromCertificateArn(this, 'PagesCertificate', props.pagesCertificateArn!),
        minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      }),
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: this.accessLogsBucket,
      logFilePrefix: 'cloudfront/',
    });
    this.pagesBaseUrl = `https://${this.distribution.distributionDomainName}/pages`;
  }
}
