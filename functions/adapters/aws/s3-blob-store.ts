// Blobs in S3: originals of documents (DOCUMENTS_BUCKET; large files arrive through a presigned PUT that signs the
// exact size) and the scripts area's installed packages (SCRIPT_PACKAGES_BUCKET).
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import type { BlobStore } from '#functions/documents/ports.js';
import { type EnvName, envNames } from '#platform/env-names.js';
import { onFirstUse } from './on-first-use.js';

const sdk = onFirstUse(() => import('@aws-sdk/client-s3'));
// Only upload targets are presigned.
const presigner = onFirstUse(() => import('@aws-sdk/s3-request-presigner'));

const isMissing = (error: unknown) => error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound');

/** `bucketEnv` names the variable the route's grant sets to `bucketName`; a missing bucket fails when used, not at construction. */
export function createS3BlobStore(clientConfig: S3ClientConfig, bucketName: string | undefined, bucketEnv: EnvName = envNames.documentsBucket): BlobStore {
  const s3 = onFirstUse(async () => {
    const loaded = await sdk();
    return { sdk: loaded, client: new loaded.S3Client(clientConfig) };
  });
  const bucket = () => {
    if (!bucketName) throw new Error(`${bucketEnv} is not set: the route needs the grant that sets it`);
    return bucketName;
  };
  return {
    async put(key, bytes, contentType) {
      const { sdk, client } = await s3();
      await client.send(new sdk.PutObjectCommand({ Bucket: bucket(), Key: key, Body: bytes, ContentType: contentType }));
    },
    async get(key) {
      const { sdk, client } = await s3();
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: bucket(), Key: key }));
        return object.Body ? await object.Body.transformToByteArray() : new Uint8Array();
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async sizeOf(key) {
      const { sdk, client } = await s3();
      try {
        return (await client.send(new sdk.HeadObjectCommand({ Bucket: bucket(), Key: key }))).ContentLength;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async delete(key) {
      const { sdk, client } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket(), Key: key }));
    },
    async uploadTarget(key, contentType, bytes, expiresInSeconds) {
      const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3(), presigner()]);
      const command = new sdk.PutObjectCommand({ Bucket: bucket(), Key: key, ContentType: contentType, ContentLength: bytes });
      const url = await getSignedUrl(client, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type', 'content-length']) });
      return { url, method: 'PUT', headers: { 'Content-Type': contentType, 'Content-Length': String(bytes) } };
    },
  };
}
