// The platform wallet's keypair from Secrets Manager (PLATFORM_WALLET_SECRET_ARN, granted by the route's `platformWallet` use).
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { traced } from '#platform/tracer.js';

/** solana-keygen's JSON array of 64 bytes, or the same 64 bytes in base58 as wallets export them. */
export function parseWalletSecret(secret: string): Keypair {
  const text = secret.trim();
  const bytes = text.startsWith('[') ? Uint8Array.from(JSON.parse(text) as number[]) : bs58.decode(text);
  if (bytes.length !== 64) throw new Error(`the platform wallet secret must hold a 64-byte Solana secret key, not ${bytes.length} bytes`);
  // fromSecretKey checks that the public half matches the private half.
  return Keypair.fromSecretKey(bytes);
}

export async function loadPlatformWallet(client: SecretsManagerClient, secretId: string): Promise<Keypair> {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`secret ${secretId} has no string value`);
  return parseWalletSecret(SecretString);
}

let address: Promise<string> | undefined;

/**
 * Only the public address is kept. Public routes (offers, verify, settle) get it from the stack's context
 * (`-c platformWalletAddress=...`) and read no secret; the payout run, which signs, may derive it from the secret.
 */
export function platformWalletAddress(wallet: { address?: string; secretArn?: string }): Promise<string> {
  if (wallet.address) return Promise.resolve(wallet.address);
  const secretId = wallet.secretArn;
  if (!secretId) return Promise.reject(new Error('PLATFORM_WALLET_ADDRESS is unset: deploy with -c platformWalletAddress=<base58 address>'));
  address ??= loadPlatformWallet(traced(new SecretsManagerClient({})), secretId)
    .then((keypair) => keypair.publicKey.toBase58())
    .catch((error: unknown) => {
      address = undefined;
      throw error;
    });
  return address;
}
