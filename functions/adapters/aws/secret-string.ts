// A Secrets Manager secret's string, read once per container and kept; a failed read is tried again next time.
import { traced } from '#platform/tracer.js';

const cache = new Map<string, Promise<string>>();

export function secretString(secretArn: string): Promise<string> {
  let value = cache.get(secretArn);
  if (!value) {
    value = import('@aws-sdk/client-secrets-manager')
      .then((sdk) => traced(new sdk.SecretsManagerClient({})).send(new sdk.GetSecretValueCommand({ SecretId: secretArn })))
      .then((secret) => {
        if (!secret.SecretString) throw new Error(`the secret ${secretArn} holds no string`);
        return secret.SecretString;
      });
    value.catch(() => cache.delete(secretArn));
    cache.set(secretArn, value);
  }
  return value;
}
