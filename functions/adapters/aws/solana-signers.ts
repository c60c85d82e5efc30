// The fee payer and the settlement account (the platform wallet) from Secrets Manager: only the functions granted
// `feePayer` (co-signing settlements, payouts) and `platformWallet` (payouts) can read them.
import type { KeyObject } from 'node:crypto';
import { type PlatformSigners, signWith, signingKey } from '#functions/payments/ports.js';
import { parseWalletSecret } from './platform-wallet.js';
import { secretString } from './secret-string.js';

const keys = new Map<string, Promise<{ key: KeyObject; address: string }>>();

/** The keypair in a secret, as a signing key and its address; the secret is read once per container. */
export function walletKey(secretArn: string): Promise<{ key: KeyObject; address: string }> {
  let loaded = keys.get(secretArn);
  if (!loaded) {
    loaded = secretString(secretArn).then((secret) => {
      const keypair = parseWalletSecret(secret);
      return { key: signingKey(keypair.secretKey), address: keypair.publicKey.toBase58() };
    });
    loaded.catch(() => keys.delete(secretArn));
    keys.set(secretArn, loaded);
  }
  return loaded;
}

const required = (value: string | undefined, name: string, capability: string) => {
  if (!value) throw new Error(`${name} is unset: the function needs \`uses: [${capability}]\``);
  return value;
};

export function secretSigners(secrets: { feePayer: () => string | undefined; settlement: () => string | undefined }): PlatformSigners {
  return {
    async signAsFeePayer(message) {
      return signWith((await walletKey(required(secrets.feePayer(), 'FEE_PAYER_SECRET_ARN', 'feePayer'))).key, message);
    },
    async signAsSettlement(message) {
      return signWith((await walletKey(required(secrets.settlement(), 'PLATFORM_WALLET_SECRET_ARN', 'platformWallet'))).key, message);
    },
  };
}
