import { createHash, randomBytes } from 'node:crypto';

/** Sortable-enough, URL-safe ids with a readable prefix: `usr_k3j9...`. */
export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

/** 32 random bytes, shown once, stored only as SHA-256. */
export const newSecret = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;
