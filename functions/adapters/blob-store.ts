import { config } from '#platform/config.js';
import type { BlobStore } from '#functions/documents/ports.js';
import { createS3BlobStore } from './aws/s3-blob-store.js';
import { createFileBlobStore } from './local/file-blob-store.js';

export const documentBlobStore = (): BlobStore => (config.mode === 'local' ? createFileBlobStore() : createS3BlobStore());
