// Packages of script functions on Lambda: a version's installed dependencies become a layer named by its lock hash,
// published once and shared by every version (of any script) with the same lock; a package past the direct-upload
// limit (function code or layer) goes through the script-packages bucket, as Lambda requires.
import { type LambdaClient, ListLayerVersionsCommand, PublishLayerVersionCommand, type Runtime } from '@aws-sdk/client-lambda';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DependencyTree } from '#functions/scripts/dependencies.js';

/** Lambda takes a zip of up to 50 MB inline; its base64 in the request body makes the practical limit lower. */
export const directUploadLimitBytes = 40 * 1024 * 1024;

export interface PackageUploadOptions {
  s3: S3Client;
  /** The script-packages bucket. */
  bucket: () => string;
  /** Zips up to this size are sent inline; default directUploadLimitBytes. */
  directUploadLimitBytes?: number;
}

/** `ZipFile` inline, or the S3 object the zip was put to under `key`. */
export async function packageSource(zip: Uint8Array, key: string, options: PackageUploadOptions): Promise<{ ZipFile: Uint8Array } | { S3Bucket: string; S3Key: string }> {
  if (zip.byteLength <= (options.directUploadLimitBytes ?? directUploadLimitBytes)) return { ZipFile: zip };
  const bucket = options.bucket();
  await options.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: zip, ContentType: 'application/zip' }));
  return { S3Bucket: bucket, S3Key: key };
}

/** The layer version holding `tree`; published on first use of its lock hash, found by name afterwards. */
export async function dependencyLayer(client: LambdaClient, tree: DependencyTree, runtime: Runtime, functionPrefix: string, options: PackageUploadOptions): Promise<string> {
  const LayerName = `${functionPrefix}deps-${tree.lockHash.slice(0, 48)}`;
  const existing = await client.send(new ListLayerVersionsCommand({ LayerName, MaxItems: 1 }));
  const found = existing.LayerVersions?.[0]?.LayerVersionArn;
  if (found) return found;
  const Content = await packageSource(await tree.archive(), `layers/${tree.lockHash}.zip`, options);
  const published = await client.send(
    new PublishLayerVersionCommand({ LayerName, Description: `script dependencies, lock ${tree.lockHash.slice(0, 12)}`, Content, CompatibleRuntimes: [runtime] }),
  );
  return published.LayerVersionArn!;
}
