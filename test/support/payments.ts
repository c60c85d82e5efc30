// Paying in tests: funded payers from the local faucet, balances read through a standard web3.js Connection,
// hand-made transactions for the refusal cases.
import { Connection, Keypair, PublicKey, type TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { encodePaymentHeader } from '../../functions/payments/client.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { afterAll, beforeAll } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from './platform.js';
import { type Upstream, givenPublishedResource, json, startUpstream } from './resources.js';

export const solanaConnection = (api: TestApi) => new Connection(`${api.baseUrl}/solana`, 'confirmed');

export async function fund(api: TestApi, address: string, asset: 'SOL' | 'USDC', amount: number): Promise<void> {
  const response = await api.request('POST', '/api/x402/dev/airdrop', { body: { address, asset, amount } });
  if (response.status !== 200) throw new Error(`airdrop failed: ${response.text}`);
}

/** A payer holding 1 SOL and 10 USDC. */
export async function givenPayer(api: TestApi): Promise<Keypair> {
  const payer = Keypair.generate();
  await fund(api, payer.publicKey.toBase58(), 'SOL', 1);
  await fund(api, payer.publicKey.toBase58(), 'USDC', 10);
  return payer;
}

/** Atomic units of `mint` held by `owner`'s associated token account; 0 when it does not exist yet. */
export async function tokenBalance(connection: Connection, mint: string, owner: string): Promise<bigint> {
  const account = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true);
  try {
    return BigInt((await connection.getTokenAccountBalance(account)).value.amount);
  } catch {
    return 0n;
  }
}

export const lamportBalance = async (connection: Connection, owner: string) => BigInt(await connection.getBalance(new PublicKey(owner)));

/** A TransferChecked of `amount` from the payer's ATA to `to`'s ATA. */
export const tokenTransfer = (payer: Keypair, mint: string, to: string, amount: bigint) =>
  createTransferCheckedInstruction(
    getAssociatedTokenAddressSync(new PublicKey(mint), payer.publicKey),
    new PublicKey(mint),
    getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(to), true),
    payer.publicKey,
    amount,
    6,
  );

/** A v1 payment header around any instructions, signed by `payer`. */
export function headerWith(offer: PaymentRequirement, payer: Keypair, blockhash: string, instructions: TransactionInstruction[]): string {
  const transaction = new VersionedTransaction(
    new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message(),
  );
  transaction.sign([payer]);
  return encodePaymentHeader(transaction, offer);
}

/** The payment payload inside a header, changed by `change`, encoded again. */
export function rewriteHeader(header: string, change: (payload: Record<string, any>) => Record<string, any>): string {
  return Buffer.from(JSON.stringify(change(JSON.parse(Buffer.from(header, 'base64').toString('utf8'))))).toString('base64');
}

export interface PaymentWorld {
  api: TestApi;
  upstream: Upstream;
  /** Sells `resourceId` at 0.01 USD a call; their wallet starts empty. */
  owner: TestUser;
  ownerWallet: string;
  resourceId: string;
  connection: Connection;
  /** The paid call of getForecast, with its query. */
  paidPath: string;
}

/** A payments test file's platform, upstream and one seller with a priced resource: started before its tests, stopped after. */
export function paymentWorld(): PaymentWorld {
  const world = {} as PaymentWorld;
  beforeAll(async () => {
    [world.api, world.upstream] = await Promise.all([startTestPlatform({ ownTables: true }), startUpstream()]);
    world.ownerWallet = Keypair.generate().publicKey.toBase58();
    world.owner = await world.api.givenUser({ walletAddress: world.ownerWallet });
    world.upstream.respond((request, response) => json(response, 200, { forecast: 'sunny', path: request.url }));
    world.resourceId = await givenPublishedResource(
      world.api,
      world.owner,
      { pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' } },
      { baseUrl: `${world.upstream.baseUrl}/v1` },
    );
    world.connection = solanaConnection(world.api);
    world.paidPath = `/api/x402/resources/${world.resourceId}/getForecast?city=Oslo&days=2`;
  });
  afterAll(async () => {
    await world.upstream.close();
    await world.api.stop();
  });
  return world;
}
