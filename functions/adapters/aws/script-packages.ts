// Packages of script functions on Lambda: a version's installed dependencies become a layer named by its tree hash
// (`lockHash`: lock and installed files), published once and shared by every version (of any script) with an equal
// tree; a package past the direct-upload limit (function code or layer) goes through the script-packages bucket, as
// Lambda requires.
import type { LambdaClient, Runtime } from '@aws-sdk/client-lambda';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DependencyTree } from '#functions/scripts/runs/runtime-port.js';
import { onFirstUse } from './on-first-use.js';

// Loaded on the first deploy, as the clients are (script-functions.ts).
const lambdaSdk = onFirstUse(() => import('@aws-sdk/client-lambda'));
const s3Sdk = onFirstUse(() => import('@aws-sdk/client-s3'));

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
export async function packageSource(
  zip: Uint8Array,
  key: string,
  options: PackageUploadOptions,
): Promise<{ ZipFile: Uint8Array } | { S3Bucket: string; S3Key: string }> {
  if (zip.byteLength <= (options.directUploadLimitBytes ?? directUploadLimitBytes)) return { ZipFile: zip };
  const bucket = options.bucket();
  const { PutObjectCommand } = await s3Sdk();
  await options.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: zip, ContentType: 'application/zip' }));
  return { S3Bucket: bucket, S3Key: key };
}

const layerName = (functionPrefix: string, lockHash: string) => `${functionPrefix}deps-${lockHash.slice(0, 48)}`;
/** Where a layer past the direct-upload limit is put for PublishLayerVersion. */
const layerUploadKey = (lockHash: string) => `layers/${lockHash}.zip`;

/** The layer version holding `tree`; published on first use of its lock hash, found by name afterwards. */
export async function dependencyLayer(
  client: LambdaClient,
  tree: DependencyTree,
  runtime: Runtime,
  functionPrefix: string,
  options: PackageUploadOptions,
): Promise<string> {
  const { ListLayerVersionsCommand, PublishLayerVersionCommand } = await lambdaSdk();
  const LayerName = layerName(functionPrefix, tree.lockHash);
  const existing = await client.send(new ListLayerVersionsCommand({ LayerName, MaxItems: 1 }));
  const found = existing.LayerVersions?.[0]?.LayerVersionArn;
  if (found) return found;
  const Content = await packageSource(await tree.archive(), layerUploadKey(tree.lockHash), options);
  const published = await client.send(
    new PublishLayerVersionCommand({
      LayerName,
      Description: `script dependencies, lock ${tree.lockHash.slice(0, 12)}`,
      Content,
      CompatibleRuntimes: [runtime],
    }),
  );
  return published.LayerVersionArn!;
}

/**
 * Deletes every version of the layer of `lockHash` and its upload. Lambda keeps a deleted version's content for the
 * functions that still refer to it; it can no longer be added to one.
 */
export async function removeDependencyLayer(client: LambdaClient, lockHash: string, functionPrefix: string, options: PackageUploadOptions): Promise<void> {
  const [{ DeleteLayerVersionCommand, paginateListLayerVersions }, { DeleteObjectCommand }] = await Promise.all([lambdaSdk(), s3Sdk()]);
  const LayerName = layerName(functionPrefix, lockHash);
  for await (const page of paginateListLayerVersions({ client }, { LayerName })) {
    for (const { Version } of page.LayerVersions ?? []) await client.send(new DeleteLayerVersionCommand({ LayerName, VersionNumber: Version! }));
  }
  await options.s3.send(new DeleteObjectCommand({ Bucket: options.bucket(), Key: layerUploadKey(lockHash) }));
}
