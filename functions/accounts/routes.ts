import { defineRoutes } from '#platform/route.js';
import { Message } from '#platform/schemas.js';
import { CreateKeyInput, CreateUserInput, CreatedKey, CreatedUser, KeyIdInput, KeyList, ListKeysInput, UpdateMeInput, User } from './schemas.js';

export const accountRoutes = defineRoutes('accounts', {
  createUser: {
    method: 'POST', path: '/api/admin/v1/users', auth: 'admin', summary: 'Create a user and its first API key (admin key required)',
    input: CreateUserInput, output: CreatedUser, successStatus: 201,
    tables: { users: 'write', usernames: 'write', apiKeys: 'write' }, uses: ['adminSecret'],
  },
  getMe: {
    method: 'GET', path: '/api/sdk/v1/me', auth: 'apiKey', summary: 'The calling account',
    output: User, tables: { users: 'read' },
  },
  updateMe: {
    method: 'PATCH', path: '/api/sdk/v1/me', auth: 'apiKey', scopes: ['account:write'], summary: 'Change username, wallet address or monthly budget',
    input: UpdateMeInput, output: User, tables: { users: 'write', usernames: 'write' },
  },
  createKey: {
    method: 'POST', path: '/api/sdk/v1/keys', auth: 'apiKey', scopes: ['keys:manage'], summary: 'Issue an API key (shown once)',
    input: CreateKeyInput, output: CreatedKey, successStatus: 201, tables: { apiKeys: 'write' },
  },
  listKeys: {
    method: 'GET', path: '/api/sdk/v1/keys', auth: 'apiKey', scopes: ['keys:manage'], summary: "The caller's API keys, without the secrets",
    input: ListKeysInput, output: KeyList, tables: { apiKeys: 'read' },
  },
  deleteKey: {
    method: 'DELETE', path: '/api/sdk/v1/keys/{keyId}', auth: 'apiKey', scopes: ['keys:manage'], summary: 'Revoke an API key',
    input: KeyIdInput, output: Message, tables: { apiKeys: 'write' },
  },
});
