// x402 payments: verification of a payment header on one core (decode, ed25519 checks, rules), and paid calls end to end
// in local mode (402 offer -> signed split -> verify, claim, settle on the embedded bank, resource call, record); the
// payout offer paid by the unmodified reference client in the same run (its PAYMENT-SIGNATURE made by @x402/svm,
// whose random memo keeps equal payments distinct; co-signed, simulated, settled), and payouts per second.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Connection, Keypair } from '@solana/web3.js';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactSvmScheme, toClientSvmSigner } from '@x402/svm';
import { createPaymentHeader, selectOffer } from '../functions/payments/client.js';
import { payoutBatch } from './payouts.js';
import type { PaymentRequirement } from '../functions/payments/schemas.js';
import { verifyPayment } from '../functions/payments/verification.js';
import { decodePaymentHeader } from '../functions/payments/x402-codec.js';
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'payments';
export const description = 'x402 header verifications per second on one core; sequential paid calls (USDC split settled on the local bank)';

const verificationSeconds = 3;
const paidCalls = 300;
const referencePaidCalls = 150;
const owedPayments = 1000;
const targetPayoutsPerSecond = 200;
const targetVerificationsPerSecond = 2000;
const targetSettleP50Ms = 50;

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * Verifications of one valid header, as the paid-call path runs them. Counted per second of this thread's CPU time:
 * verification is synchronous, so that is its rate on one core, whatever else the machine is running.
 */
function verificationsPerSecond(offers: PaymentRequirement[], header: string, network: 'solana-devnet', platformWallet: string): { cpu: number; wall: number } {
  const deadline = performance.now() + verificationSeconds * 1000;
  let count = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  while (performance.now() < deadline) {
    for (let index = 0; index < 50; index++) verifyPayment(decodePaymentHeader(header), offers, network, platformWallet, 150);
    count += 50;
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { cpu: count / ((cpu.user + cpu.system) / 1e6), wall: count / ((performance.now() - started) / 1000) };
}

export async function startUpstream(): Promise<{ baseUrl: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"forecast":"sunny"}');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, text, body: text ? (JSON.parse(text) as any) : undefined };
}

/** A resource of the dev account sold at 0.01 USD a call (`forecast`), published: its id. */
export async function publishedPaidResource(baseUrl: string, headers: Record<string, string>, upstreamBaseUrl: string): Promise<string> {
  const created = await call(`${baseUrl}/api/sdk/v1/resources`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'bench-weather',
      description: 'Forecasts',
      resourceType: 'api',
      openApiSpec: {
        openapi: '3.0.3',
        info: { title: 'Weather', version: '1.0.0' },
        paths: { '/forecast': { get: { responses: { '200': { description: 'ok' } } } } },
      },
      pricing: { model: 'pay-per-call', basePrice: 0.01, currency: 'USDC' },
      endpoint: { baseUrl: upstreamBaseUrl, authentication: 'none', methods: [{ name: 'forecast', httpMethod: 'GET', path: '/forecast' }] },
    }),
  });
  if (created.status !== 201) throw new Error(`resource not created: ${created.text}`);
  const resourceId = created.body.data.id as string;
  const published = await call(`${baseUrl}/api/sdk/v1/resources/${resourceId}/publish`, { method: 'POST', headers, body: '{}' });
  if (published.status !== 200) throw new Error(`resource not published: ${published.text}`);
  return resourceId;
}

/**
 * What a paid-call bench starts from: the dev account with a wallet selling `forecast`, its USDC offer, and a payer
 * funded on the embedded bank.
 */
export async function givenPaidCall(baseUrl: string, apiKey: string, upstreamBaseUrl: string) {
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  await call(`${baseUrl}/api/sdk/v1/me`, { method: 'PATCH', headers, body: JSON.stringify({ walletAddress: Keypair.generate().publicKey.toBase58() }) });
  const resourceId = await publishedPaidResource(baseUrl, headers, upstreamBaseUrl);
  const url = `${baseUrl}/api/x402/resources/${resourceId}/forecast`;
  const required = await call(url);
  const offer = selectOffer(required.body, 'USDC');
  const payer = Keypair.generate();
  for (const asset of ['SOL', 'USDC'] as const) {
    await call(`${baseUrl}/api/x402/dev/airdrop`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ address: payer.publicKey.toBase58(), asset, amount: asset === 'SOL' ? 10 : 100 }),
    });
  }
  return { headers, resourceId, url, required, offer, payer, connection: new Connection(`${baseUrl}/solana`, 'confirmed') };
}

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  const upstream = await startUpstream();
  try {
    const { baseUrl, dev } = platform;
    const { url, required, offer, payer, connection } = await givenPaidCall(baseUrl, dev.apiKey, upstream.baseUrl);
    const { blockhash } = await connection.getLatestBlockhash();

    const verifications = verificationsPerSecond(
      required.body.accepts,
      createPaymentHeader(offer, payer, blockhash),
      'solana-devnet',
      offer.extra.serverWalletAddress,
    );
    console.log(`  verifications: ${Math.round(verifications.cpu)} per CPU second, ${Math.round(verifications.wall)} per wall-clock second`);

    const latencies: number[] = [];
    let recent = blockhash;
    const started = performance.now();
    for (let index = 0; index < paidCalls; index++) {
      // A fresh blockhash now and then keeps every payment well inside its 150-slot lifetime.
      if (index % 50 === 0) recent = (await connection.getLatestBlockhash()).blockhash;
      const header = createPaymentHeader(offer, payer, recent);
      const before = performance.now();
      const paid = await call(url, { headers: { 'x-payment': header } });
      latencies.push(performance.now() - before);
      if (paid.status !== 200) throw new Error(`paid call ${index} answered ${paid.status}: ${paid.text}`);
    }
    const elapsedSeconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);

    // The payout offer, paid as the reference client pays it; only the paid request is timed, as above.
    const payoutOffer = required.body.accepts.find((candidate: PaymentRequirement) => candidate.extra.settlement === 'payout') as PaymentRequirement;
    const signer = toClientSvmSigner(await createKeyPairSignerFromBytes(payer.secretKey));
    const reference = new x402HTTPClient(new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: `${baseUrl}/solana` })));
    const asked = await fetch(url);
    const paymentRequired = reference.getPaymentRequiredResponse((header) => asked.headers.get(header), await asked.json());
    const referenceLatencies: number[] = [];
    for (let index = 0; index < referencePaidCalls; index++) {
      const headers = reference.encodePaymentSignatureHeader(await reference.createPaymentPayload(paymentRequired));
      const before = performance.now();
      const paid = await call(url, { headers });
      referenceLatencies.push(performance.now() - before);
      if (paid.status !== 200) throw new Error(`reference-client paid call ${index} answered ${paid.status}: ${paid.text}`);
    }
    referenceLatencies.sort((a, b) => a - b);
    console.log(`  reference-client paid call p50 ${round2(percentile(referenceLatencies, 50))} ms, split ${round2(percentile(latencies, 50))} ms`);

    const payouts = await payoutBatch(platform, payoutOffer.payTo, owedPayments);
    console.log(`  payouts: ${payouts.paid} owed payments to ${payouts.owners}+ owners paid in ${round2(payouts.seconds)} s`);
    return [
      {
        name: `${name}.verifications_per_second`,
        value: Math.round(verifications.cpu),
        unit: 'verifications/CPU-s',
        target: targetVerificationsPerSecond,
        better: 'higher',
      },
      { name: `${name}.paid_call_p50_ms`, value: round2(percentile(latencies, 50)), unit: 'ms', target: targetSettleP50Ms, better: 'lower' },
      { name: `${name}.paid_call_p99_ms`, value: round2(percentile(latencies, 99)), unit: 'ms', target: 4 * targetSettleP50Ms, better: 'lower' },
      // One caller at a time: the rate follows from the latency target.
      { name: `${name}.paid_calls_per_second`, value: round2(paidCalls / elapsedSeconds), unit: 'calls/s', target: 1000 / targetSettleP50Ms, better: 'higher' },
      // Same run, same machine: the payout offer co-signs and simulates besides what the split does.
      {
        name: `${name}.reference_client_paid_call_p50_ms`,
        value: round2(percentile(referenceLatencies, 50)),
        unit: 'ms',
        target: targetSettleP50Ms,
        better: 'lower',
        baseline: { name: `${name}.paid_call_p50_ms`, value: round2(percentile(latencies, 50)) },
      },
      {
        name: `${name}.reference_client_paid_call_p99_ms`,
        value: round2(percentile(referenceLatencies, 99)),
        unit: 'ms',
        target: 4 * targetSettleP50Ms,
        better: 'lower',
        baseline: { name: `${name}.paid_call_p99_ms`, value: round2(percentile(latencies, 99)) },
      },
      {
        name: `${name}.payouts_per_second`,
        value: round2(payouts.paid / payouts.seconds),
        unit: 'payments/s',
        target: targetPayoutsPerSecond,
        better: 'higher',
      },
    ];
  } finally {
    await new Promise<void>((closed) => {
      upstream.server.closeAllConnections();
      upstream.server.close(() => closed());
    });
    await platform.stop();
  }
}
