import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createSetAuthorityInstruction, AuthorityType, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { describe, expect, it } from 'vitest';
import { createPaymentHeader, encodePaymentHeader, paymentInstructions, paymentTransaction, selectOffer } from '../../functions/payments/client.js';
import type { PaymentError } from '../../functions/payments/errors.js';
import { nativeSolMint, splitAmount, usdToLamports, usdToUsdc } from '../../functions/payments/networks.js';
import { buildRequirements } from '../../functions/payments/requirements.js';
import type { PaymentRequirement } from '../../functions/payments/schemas.js';
import { verifyPayment } from '../../functions/payments/verification.js';
import { decodePaymentHeader } from '../../functions/payments/x402-codec.js';
import { tokenTransfer } from '../support/payments.js';

const platform = Keypair.generate().publicKey.toBase58();
const usdcMint = Keypair.generate().publicKey.toBase58();
const owner = Keypair.generate().publicKey.toBase58();
const blockhash = Keypair.generate().publicKey.toBase58();
const ledger = { network: 'solana-devnet' as const, usdcMint, platformWallet: platform, feePayer: Keypair.generate().publicKey.toBase58() };
/** The split offers only, the owner's wallet rent-exempt: these cases are about the interface's split. */
const splitOnly = { payoutOffer: false, ownerLamports: 1_000_000_000n, rentExemptMinimum: 890_880n };

const offers = (priceUsd = 0.05): PaymentRequirement[] =>
  buildRequirements({
    resource: { resourceId: 'res_abc', name: 'Weather', description: 'forecasts', published: true, ownerId: 'usr_owner', methods: [] },
    method: { name: 'forecast', priceUsd, definition: { name: 'forecast', httpMethod: 'GET', path: '/f', parameters: [] } },
    seller: { userId: 'usr_owner', username: 'owner', walletAddress: owner },
    baseUrl: 'http://127.0.0.1:3000',
    ledger,
    solPriceUsd: 150,
    ...splitOnly,
  });

const verify = (header: string, accepts = offers()) => verifyPayment(decodePaymentHeader(header), accepts, 'solana-devnet', platform, 150);
const refusal = (header: string, accepts = offers()) => {
  try {
    verify(header, accepts);
  } catch (error) {
    return error as PaymentError;
  }
  throw new Error('the payment was accepted');
};

/** A signed v1 header around any instructions. */
function headerOf(instructions: TransactionInstruction[], signers: Keypair[], offer = offers()[0]!, legacy = false): string {
  const feePayer = signers[0]!;
  if (legacy) {
    const transaction = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: blockhash }).add(...instructions);
    transaction.sign(...signers);
    return Buffer.from(
      JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'solana-devnet', payload: { transaction: transaction.serialize().toString('base64') } }),
    ).toString('base64');
  }
  const transaction = new VersionedTransaction(
    new TransactionMessage({ payerKey: feePayer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message(),
  );
  transaction.sign(signers);
  return encodePaymentHeader(transaction, offer);
}

const usdcTransfer = (payer: Keypair, to: string, amount: bigint, mint = usdcMint) => tokenTransfer(payer, mint, to, amount);

describe('payments: amounts', () => {
  it('converts USD to USDC units exactly and to lamports rounded up, and splits 90/10 with the owner keeping the remainder', () => {
    // Act
    const cents = usdToUsdc(0.01);
    const lamports = usdToLamports(0.01, 150);
    const split = splitAmount(1_000_005n);
    // Assess
    expect(cents).toBe(10_000n);
    expect(lamports).toBe(66_667n);
    expect(split).toEqual({ agentOwnerAmount: 900_005n, serverFeeAmount: 100_000n });
  });

  it('offers USDC and SOL with every field of the interface', () => {
    // Act
    const [usdc, sol] = offers(0.05);
    // Assess
    expect(usdc).toEqual({
      scheme: 'exact',
      network: 'solana-devnet',
      maxAmountRequired: '50000',
      resource: 'http://127.0.0.1:3000/api/x402/resources/res_abc/forecast',
      description: 'Weather: forecasts',
      mimeType: 'application/json',
      payTo: owner,
      maxTimeoutSeconds: 25,
      asset: usdcMint,
      extra: {
        agentOwner: { username: 'owner', userId: 'usr_owner', walletAddress: owner },
        serverFeePercentage: 10,
        serverWalletAddress: platform,
        decimals: 6,
        symbol: 'USDC',
        settlement: 'split',
      },
    });
    expect(sol).toMatchObject({
      asset: nativeSolMint,
      maxAmountRequired: usdToLamports(0.05, 150).toString(),
      extra: { decimals: 9, symbol: 'SOL', settlement: 'split' },
    });
  });

  it("puts the payout offer first, and leaves SOL out when the owner's share would leave their wallet below rent exemption", () => {
    // Act
    const offered = buildRequirements({
      resource: { resourceId: 'res_abc', name: 'Weather', description: 'forecasts', published: true, ownerId: 'usr_owner', methods: [] },
      method: { name: 'forecast', priceUsd: 0.01, definition: { name: 'forecast', httpMethod: 'GET', path: '/f', parameters: [] } },
      seller: { userId: 'usr_owner', username: 'owner', walletAddress: owner },
      baseUrl: 'http://127.0.0.1:3000',
      ledger,
      solPriceUsd: 150,
      payoutOffer: true,
      ownerLamports: 0n,
      rentExemptMinimum: 890_880n,
    });
    // Assess
    expect(offered.map((offer) => [offer.extra.symbol, offer.extra.settlement, offer.payTo])).toEqual([
      ['USDC', 'payout', platform],
      ['USDC', 'split', owner],
    ]);
    expect(offered[0]!.extra).toMatchObject({ feePayer: ledger.feePayer, agentOwner: { userId: 'usr_owner' }, serverFeePercentage: 10 });
  });
});

describe('payments: verification of a payment header', () => {
  it("accepts the client helper's USDC split and reports the payer and both shares", () => {
    // Prepare
    const payer = Keypair.generate();
    const header = createPaymentHeader(selectOffer({ accepts: offers() }, 'USDC'), payer, blockhash);
    // Act
    const verified = verify(header);
    // Assess
    expect(verified.payer).toBe(payer.publicKey.toBase58());
    expect(verified.offer.asset).toBe(usdcMint);
    expect(verified.paid).toEqual({ agentOwnerAmount: 45_000n, serverFeeAmount: 5_000n });
  });

  it('accepts a SOL split and an x402 v2 payload naming its offer', () => {
    // Prepare
    const payer = Keypair.generate();
    const sol = selectOffer({ accepts: offers() }, 'SOL');
    // Act
    const v1 = verify(createPaymentHeader(sol, payer, blockhash));
    const v2 = verify(createPaymentHeader(sol, payer, blockhash, { version: 2 }));
    // Assess
    expect(v1.offer.asset).toBe(nativeSolMint);
    expect(v2.offer.asset).toBe(nativeSolMint);
    expect(v1.paid.serverFeeAmount).toBe(splitAmount(BigInt(sol.maxAmountRequired)).serverFeeAmount);
  });

  it('accepts a legacy transaction as well as v0', () => {
    // Prepare
    const payer = Keypair.generate();
    const header = headerOf(paymentInstructions(offers()[0]!, payer.publicKey), [payer], offers()[0], true);
    // Act
    const verified = verify(header);
    // Assess
    expect(verified.paid).toEqual({ agentOwnerAmount: 45_000n, serverFeeAmount: 5_000n });
  });

  it('refuses under-payment, owner-only payment and payment in another mint as INSUFFICIENT_AMOUNT', () => {
    // Prepare
    const payer = Keypair.generate();
    const otherMint = Keypair.generate().publicKey.toBase58();
    // Act
    const under = refusal(headerOf([usdcTransfer(payer, owner, 44_999n), usdcTransfer(payer, platform, 5_000n)], [payer]));
    const ownerOnly = refusal(headerOf([usdcTransfer(payer, owner, 50_000n)], [payer]));
    const wrongMint = refusal(headerOf([usdcTransfer(payer, owner, 45_000n, otherMint), usdcTransfer(payer, platform, 5_000n, otherMint)], [payer]));
    // Assess
    expect([under.code, ownerOnly.code, wrongMint.code]).toEqual(['INSUFFICIENT_AMOUNT', 'INSUFFICIENT_AMOUNT', 'INSUFFICIENT_AMOUNT']);
    expect(under.status).toBe(402);
    expect(ownerOnly.message).toContain('pays 50000 and 0');
  });

  it('refuses a forged signature, a garbage header and a transaction that is no transaction as INVALID_PAYMENT', () => {
    // Prepare
    const payer = Keypair.generate();
    const payload = decodePaymentHeader(createPaymentHeader(offers()[0]!, payer, blockhash));
    const wire = Buffer.from(payload.payload.transaction, 'base64');
    wire[1]! ^= 0xff;
    const forged = Buffer.from(JSON.stringify({ ...payload, payload: { transaction: wire.toString('base64') } })).toString('base64');
    const notATransaction = Buffer.from(JSON.stringify({ ...payload, payload: { transaction: Buffer.from('hello').toString('base64') } })).toString('base64');
    // Act
    const codes = [forged, '%%% not base64', Buffer.from('{"x402Version":1}').toString('base64'), notATransaction].map((header) => refusal(header).code);
    // Assess
    expect(codes).toEqual(['INVALID_PAYMENT', 'INVALID_PAYMENT', 'INVALID_PAYMENT', 'INVALID_PAYMENT']);
  });

  it('refuses a payment for another network as NETWORK_MISMATCH', () => {
    // Prepare
    const payer = Keypair.generate();
    const payload = decodePaymentHeader(createPaymentHeader(offers()[0]!, payer, blockhash));
    const mainnet = Buffer.from(JSON.stringify({ ...payload, network: 'solana' })).toString('base64');
    // Act
    const refused = refusal(mainnet);
    // Assess
    expect(refused.code).toBe('NETWORK_MISMATCH');
  });

  it('refuses instructions outside the allow-list, a third-party transfer, an abusive compute price and the platform as fee payer', () => {
    // Prepare
    const payer = Keypair.generate();
    const split = paymentInstructions(offers()[0]!, payer.publicKey);
    const mint = new PublicKey(usdcMint);
    const setAuthority = createSetAuthorityInstruction(
      getAssociatedTokenAddressSync(mint, payer.publicKey),
      payer.publicKey,
      AuthorityType.AccountOwner,
      Keypair.generate().publicKey,
    );
    const platformKey = Keypair.generate();
    const platformOffers = buildRequirements({
      ...{ resource: { resourceId: 'res_abc', name: 'W', description: 'd', published: true, ownerId: 'o', methods: [] } },
      method: { name: 'm', priceUsd: 0.05, definition: { name: 'm', httpMethod: 'GET', path: '/', parameters: [] } },
      seller: { userId: 'o', username: 'o', walletAddress: owner },
      baseUrl: 'http://x',
      ledger: { ...ledger, platformWallet: platformKey.publicKey.toBase58() },
      solPriceUsd: 150,
      ...splitOnly,
    });
    // Act
    const forbidden = refusal(headerOf([...split, setAuthority], [payer]));
    const thirdParty = refusal(headerOf([...split, usdcTransfer(payer, Keypair.generate().publicKey.toBase58(), 1n)], [payer]));
    const createAccount = refusal(
      headerOf(
        [
          ...split,
          SystemProgram.createAccount({
            fromPubkey: payer.publicKey,
            newAccountPubkey: payer.publicKey,
            lamports: 1,
            space: 0,
            programId: SystemProgram.programId,
          }),
        ],
        [payer],
      ),
    );
    const pricey = refusal(headerOf(paymentInstructions(offers()[0]!, payer.publicKey, { computeUnitPriceMicroLamports: 10_000_000 }), [payer]));
    let platformPays: PaymentError | undefined;
    try {
      verifyPayment(
        decodePaymentHeader(headerOf(paymentInstructions(platformOffers[0]!, payer.publicKey), [platformKey, payer])),
        platformOffers,
        'solana-devnet',
        platformKey.publicKey.toBase58(),
        150,
      );
    } catch (error) {
      platformPays = error as PaymentError;
    }
    // Assess
    expect([forbidden.code, thirdParty.code, createAccount.code, pricey.code, platformPays?.code]).toEqual([
      'INVALID_PAYMENT',
      'INVALID_PAYMENT',
      'INVALID_PAYMENT',
      'INVALID_PAYMENT',
      'INVALID_PAYMENT',
    ]);
    expect(platformPays?.message).toContain('platform wallet');
  });

  it('builds an unsigned transaction for a wallet to sign', () => {
    // Prepare
    const payer = Keypair.generate();
    // Act
    const transaction = paymentTransaction(offers()[0]!, payer.publicKey, blockhash, { memo: 'invoice-1' });
    // Assess
    expect(transaction.signatures.every((signature) => signature.every((byte) => byte === 0))).toBe(true);
    expect(transaction.message.staticAccountKeys[0]!.toBase58()).toBe(payer.publicKey.toBase58());
  });
});
