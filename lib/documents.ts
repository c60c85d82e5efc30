// Vectors of document graphs too large to load into one Lambda (docs/data-model.md): one Amazon S3 Vectors bucket and
// one index (512 float32 dimensions, Titan v2's size; cosine distance), filtered by graph. The functions that write or
// search documents get it through the `documentVectors` capability (grants.ts).
import { RemovalPolicy } from 'aws-cdk-lib';
import { CfnIndex, CfnVectorBucket } from 'aws-cdk-lib/aws-s3vectors';
import { Construct } from 'constructs';

export const documentVectorDimensions = 512;

export class DocumentVectors extends Construct {
  readonly bucket: CfnVectorBucket;
  readonly index: CfnIndex;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new CfnVectorBucket(this, 'Bucket', { encryptionConfiguration: { sseType: 'AES256' } });
    this.index = new CfnIndex(this, 'Index', {
      vectorBucketArn: this.bucket.attrVectorBucketArn,
      dataType: 'float32',
      dimension: documentVectorDimensions,
      distanceMetric: 'cosine',
      // Only the graph is filtered on; the rest only comes back with a hit.
      metadataConfiguration: { nonFilterableMetadataKeys: ['documentId', 'position'] },
    });
    // Rebuildable from the documentVectors table, but not without a job: kept like the other stores of documents.
    for (const resource of [this.bucket, this.index]) resource.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }

  get indexArn(): string {
    return this.index.attrIndexArn;
  }
}
