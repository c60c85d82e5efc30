// Blobs as files under <dataDir>/<area>/: originals of documents (large ones arrive through the local upload
// server) and the scripts area's installed packages (`script-packages`).
import { readFile, rm, stat } from 'node:fs/promises';
import type { BlobStore } from '#functions/documents/ports.js';
import { blobPath, writeBlob } from './blob-files.js';
import { localUploadServer } from './upload-server.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

export function createFileBlobStore(area = 'documents'): BlobStore {
  return {
    put: (key, bytes) => writeBlob(key, bytes, area),
    async get(key) {
      try {
        return new Uint8Array(await readFile(blobPath(key, area)));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async sizeOf(key) {
      try {
        return (await stat(blobPath(key, area))).size;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async delete(key) {
      await rm(blobPath(key, area), { force: true });
    },
    async uploadTarget(key, contentType, bytes, expiresInSeconds) {
      const server = await localUploadServer();
      return { url: server.signedUrl(key, contentType, bytes, expiresInSeconds), method: 'PUT', headers: { 'Content-Type': contentType } };
    },
  };
}
