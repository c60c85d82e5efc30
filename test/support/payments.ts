// Paying in tests: funded payers from the local faucet, balances read through a standard web3.js Connection,
// hand-made transactions for the refusal cases.
import { Connection, Keypair, PublicKey, type TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import bs58 from 'bs58';
import { afterAll, beforeAll, expect } from 'vitest';
import { createSigner, wrapFetchWithPayment } from 'x402-fetch';
import { encodePaymentHeader } from '../../functions/payments/client.js';
import { lamportsToUsdc } from '../../functions/payments/networks.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
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

export interface Seller {
  user: TestUser;
  wallet: string;
  path: string;
  usdcMint: string;
}

/** An owner with a fresh wallet (no token account yet) and a published resource at `priceUsdc` a call. */
export async function givenSeller(api: TestApi, upstream: Upstream, priceUsdc: number): Promise<Seller> {
  const wallet = Keypair.generate().publicKey.toBase58();
  const user = await api.givenUser({ walletAddress: wallet });
  const resourceId = await givenPublishedResource(
    api,
    user,
    { pricing: { model: 'pay-per-call', basePrice: priceUsdc, currency: 'USDC' } },
    { baseUrl: `${upstream.baseUrl}/v1` },
  );
  const path = `/api/x402/resources/${resourceId}/getForecast?city=Oslo`;
  return { user, wallet, path, usdcMint: (await api.request('GET', path)).body.accepts[0].asset };
}

/** Pays `times` calls of the seller's resource with the unmodified x402-fetch client (it takes the payout offer). */
export async function paidCalls(api: TestApi, seller: Seller, times: number): Promise<void> {
  const connection = solanaConnection(api);
  const payer = await givenPayer(api);
  // The client refuses to pay more than its maximum a call (0.1 USDC unless told): 1 USDC here.
  const pay = wrapFetchWithPayment(fetch, await createSigner('solana-devnet', bs58.encode(payer.secretKey)), 1_000_000n, undefined, {
    svmConfig: { rpcUrl: `${api.baseUrl}/solana` },
  });
  for (let index = 0; index < times; index++) {
    const response = await pay(`${api.baseUrl}${seller.path}&n=${index}`);
    if (response.status !== 200) throw new Error(`paid call answered ${response.status}: ${await response.text()}`);
    // The reference client's transaction of one price is the same bytes under one blockhash, as on Solana: the next
    // payment waits for a blockhash newer than the latest one after this payment (the one it used, or a later one),
    // or it would be the same (already settled) transaction.
    const { blockhash } = await connection.getLatestBlockhash();
    await expect.poll(async () => (await connection.getLatestBlockhash()).blockhash, { timeout: 10_000 }).not.toBe(blockhash);
  }
}

/** One payout run now, as the schedule would run it. */
export const runPayouts = async (api: TestApi) => (await api.request('POST', '/api/x402/dev/payouts')).body.data;

/** Micro-USDC the platform charges a payout for `lamports` of the fee payer's, at the local SOL price (150 USD). */
export const localPayoutCost = (lamports: bigint) => lamportsToUsdc(lamports, 150);
