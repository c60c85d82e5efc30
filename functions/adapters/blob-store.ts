import { settings } from '#platform/settings.js';
import type { BlobStore } from '#functions/documents/ports.js';
import { createS3BlobStore } from './aws/s3-blob-store.js';
import { createFileBlobStore } from './local/file-blob-store.js';

export const documentBlobStore = (): BlobStore => (settings.mode === 'local' ? createFileBlobStore() : createS3BlobStore());
