import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadPlatformWallet, platformWalletAddress } from '../../functions/adapters/aws/platform-wallet.js';
import { parsePlatformSettings } from '../../functions/app/platform.js';
import { SolanaBank } from '../../functions/adapters/local/solana-bank.js';
import { createPaymentStore, type StoredPayment } from '../../functions/payments/store.js';
import { type Moto, startMoto } from '../support/moto.js';

let moto: Moto;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-ledger-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  moto = await startMoto();
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});
afterAll(async () => {
  await moto.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('payments: the local Solana bank', () => {
  it('keeps its wallets, its mint and its balances across a restart, and keeps the wallet files private', () => {
    // Prepare
    const dataDir = tempDir();
    const first = SolanaBank.start(dataDir);
    const holder = Keypair.generate().publicKey.toBase58();
    first.airdrop(holder, 'SOL', 3_000_000n);
    const usdc = first.airdrop(holder, 'USDC', 42_000_000n);
    first.save();
    // Act
    const second = SolanaBank.start(dataDir);
    // Assess
    expect(second.platformWallet.publicKey.toBase58()).toBe(first.platformWallet.publicKey.toBase58());
    expect(second.feePayer.publicKey.toBase58()).toBe(first.feePayer.publicKey.toBase58());
    expect(second.usdcMint.toBase58()).toBe('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU');
    expect(second.airdrop(holder, 'USDC', 1n).balance).toBe(42_000_001n);
    expect(second.getAccount(holder)?.lamports).toBe(3_000_000n);
    expect(usdc.balance).toBe(42_000_000n);
    for (const file of ['platform-wallet.json', 'fee-payer.json', 'usdc-mint-authority.json']) expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
  });

  it('expires a blockhash once 150 slots have passed since it was issued', () => {
    // Prepare
    const bank = SolanaBank.start(tempDir());
    const { blockhash, lastValidBlockHeight } = bank.latestBlockhash();
    // Act
    const fresh = bank.isBlockhashValid(blockhash);
    bank.warp(151n);
    const expired = bank.isBlockhashValid(blockhash);
    // Assess
    expect(fresh).toBe(true);
    expect(expired).toBe(false);
    expect(bank.slot()).toBeGreaterThan(lastValidBlockHeight);
    expect(bank.isBlockhashValid(bank.latestBlockhash().blockhash)).toBe(true);
  });
});

describe('payments: the platform wallet from Secrets Manager', () => {
  it('loads the keypair from a solana-keygen JSON array or a base58 secret, and refuses anything else', async () => {
    // Prepare
    const secrets = new SecretsManagerClient(moto.clientConfig);
    const wallet = Keypair.generate();
    const asJson = (
      await secrets.send(new CreateSecretCommand({ Name: `wallet-json-${Date.now()}`, SecretString: JSON.stringify(Array.from(wallet.secretKey)) }))
    ).ARN!;
    const asBase58 = (await secrets.send(new CreateSecretCommand({ Name: `wallet-b58-${Date.now()}`, SecretString: bs58.encode(wallet.secretKey) }))).ARN!;
    const placeholder = (await secrets.send(new CreateSecretCommand({ Name: `wallet-bad-${Date.now()}`, SecretString: 'put-the-key-here' }))).ARN!;
    // Act
    const fromJson = await loadPlatformWallet(secrets, asJson);
    const fromBase58 = await loadPlatformWallet(secrets, asBase58);
    const refused = loadPlatformWallet(secrets, placeholder);
    // Assess
    expect(fromJson.publicKey.toBase58()).toBe(wallet.publicKey.toBase58());
    expect(fromBase58.publicKey.toBase58()).toBe(wallet.publicKey.toBase58());
    await expect(refused).rejects.toThrow();
  });

  it('gives the address of the wallet named by PLATFORM_WALLET_SECRET_ARN', async () => {
    // Prepare
    const secrets = new SecretsManagerClient(moto.clientConfig);
    const wallet = Keypair.generate();
    process.env.PLATFORM_WALLET_SECRET_ARN = (
      await secrets.send(new CreateSecretCommand({ Name: `wallet-env-${Date.now()}`, SecretString: JSON.stringify(Array.from(wallet.secretKey)) }))
    ).ARN!;
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = moto.endpoint;
    process.env.AWS_ACCESS_KEY_ID = 'testing';
    process.env.AWS_SECRET_ACCESS_KEY = 'testing';
    process.env.AWS_REGION = 'us-east-1';
    // Act
    const { payments } = parsePlatformSettings(process.env);
    const address = await platformWalletAddress({ address: payments.platformWalletAddress, secretArn: payments.platformWalletSecretArn });
    // Assess
    expect(address).toBe(wallet.publicKey.toBase58());
  });
});

describe('payments: the payment store', () => {
  const payment = (txHash: string): StoredPayment => ({
    txHash,
    agentOwnerId: 'usr_store',
    network: 'solana-devnet',
    totalAmount: '10',
    agentOwnerAmount: '9',
    serverFeeAmount: '1',
    asset: 'mint',
    resource: 'url',
    resourceId: null,
    methodName: null,
    payer: 'payer',
    amountUsd: null,
    timestamp: new Date().toISOString(),
    settlementStatus: 'pending',
    blockHeight: null,
    failureReason: null,
    settlement: 'split',
    x402Version: 1,
  });

  it('lets exactly one of many concurrent claims of a transaction hash win, and a failed one be claimed again', async () => {
    // Prepare
    const store = createPaymentStore();
    const txHash = `tx-${Date.now()}-${Math.random()}`;
    // Act
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.claim(payment(txHash))));
    await store.settle(txHash, { settlementStatus: 'failed', failureReason: 'BlockhashNotFound' });
    const retried = await store.claim(payment(txHash));
    const whileRetrying = await store.claim(payment(txHash));
    // Assess
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(retried).toBe(true);
    expect(whileRetrying).toBe(false);
    expect(await store.get(txHash)).toMatchObject({ settlementStatus: 'pending', failureReason: null });
  });
});
