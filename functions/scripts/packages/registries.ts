// Private package registries per account: one URL and token each for npm and pypi, used when the account's
// versions install dependencies. The token is sealed by the credential vault like resource credentials and is
// never returned; answers say only whether one is set.
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#platform/dynamo.js';
import type { Clock } from '#platform/clock.js';
import type { CredentialVault, SealedSecret } from '#platform/ports.js';
import type { PackageRegistry } from './dependency-port.js';
import type { Ecosystem } from './dependencies.js';

export interface RegistryItem {
  userId: string;
  ecosystem: Ecosystem;
  url: string;
  token?: SealedSecret;
  updatedAt: string;
}

export function createRegistryStore() {
  const db = dynamo();
  const table = () => tableName('scriptRegistries');
  return {
    async get(userId: string, ecosystem: Ecosystem): Promise<RegistryItem | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { userId, ecosystem } }));
      return Item as RegistryItem | undefined;
    },
    list: (userId: string) =>
      queryAll<RegistryItem>({ TableName: table(), KeyConditionExpression: 'userId = :userId', ExpressionAttributeValues: { ':userId': userId } }),
    put: async (item: RegistryItem) => void (await db.send(new PutCommand({ TableName: table(), Item: item }))),
    /** True when there was one to delete. */
    async remove(userId: string, ecosystem: Ecosystem): Promise<boolean> {
      const { Attributes } = await db.send(new DeleteCommand({ TableName: table(), Key: { userId, ecosystem }, ReturnValues: 'ALL_OLD' }));
      return Attributes !== undefined;
    },
  };
}

export type RegistryStore = ReturnType<typeof createRegistryStore>;

/** The vault binds each token to its account and ecosystem. */
const vaultContext = (userId: string, ecosystem: Ecosystem) => `package-registry:${userId}:${ecosystem}`;

export const registryView = (item: RegistryItem) => ({
  ecosystem: item.ecosystem,
  url: item.url,
  hasToken: item.token !== undefined,
  updatedAt: item.updatedAt,
});

export function createRegistryService(deps: { store: RegistryStore; vault: () => CredentialVault; clock: Clock }) {
  return {
    async set(userId: string, input: { ecosystem: Ecosystem; url: string; token?: string }) {
      const token = input.token === undefined ? undefined : await deps.vault().encrypt({ token: input.token }, vaultContext(userId, input.ecosystem));
      const item: RegistryItem = { userId, ecosystem: input.ecosystem, url: input.url, ...(token && { token }), updatedAt: deps.clock.nowIso() };
      await deps.store.put(item);
      return item;
    },

    clear: (userId: string, ecosystem: Ecosystem) => deps.store.remove(userId, ecosystem),

    list: (userId: string) => deps.store.list(userId),

    /** The registry installs use, token decrypted; undefined for the public one. */
    async registryOf(userId: string, ecosystem: Ecosystem): Promise<PackageRegistry | undefined> {
      const item = await deps.store.get(userId, ecosystem);
      if (!item) return undefined;
      if (!item.token) return { url: item.url };
      const { token } = await deps.vault().decrypt(item.token, vaultContext(userId, ecosystem));
      return { url: item.url, token: String(token) };
    },
  };
}

export type RegistryService = ReturnType<typeof createRegistryService>;
