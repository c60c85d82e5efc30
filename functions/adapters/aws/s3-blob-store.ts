// Blobs in S3: originals of documents (DOCUMENTS_BUCKET; large files arrive through a presigned PUT that signs the
// exact size) and the scripts area's installed packages (SCRIPT_PACKAGES_BUCKET).
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobStore } from '#functions/documents/ports.js';
import { type EnvName, envNames } from '#platform/env-names.js';

const isMissing = (error: unknown) => error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound');

/** `bucketEnv` names the variable the route's grant sets to `bucketName`; a missing bucket fails when used, not at construction. */
export function createS3BlobStore(clientConfig: S3ClientConfig, bucketName: string | undefined, bucketEnv: EnvName = envNames.documentsBucket): BlobStore {
  const client = new S3Client(clientConfig);
  const bucket = () => {
    if (!bucketName) throw new Error(`${bucketEnv} is not set: the route needs the grant that sets it`);
    return bucketName;
  };
  return {
    async put(key, bytes, contentType) {
      await client.send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: bytes, ContentType: contentType }));
    },
    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
        return object.Body ? await object.Body.transformToByteArray() : new Uint8Array();
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async sizeOf(key) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket: bucket(), Key: key }))).ContentLength;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket(), Key: key }));
    },
    async uploadTarget(key, contentType, bytes, expiresInSeconds) {
      const command = new PutObjectCommand({ Bucket: bucket(), Key: key, ContentType: contentType, ContentLength: bytes });
      const url = await getSignedUrl(client, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type', 'content-length']) });
      return { url, method: 'PUT', headers: { 'Content-Type': contentType, 'Content-Length': String(bytes) } };
    },
  };
}
