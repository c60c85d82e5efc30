// Payouts per second: owed payments of many owners written to the payout ledger as settled reference-client
// payments leave them, the settlement account funded with their sum, then one payout run timed end to end.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { Keypair } from '@solana/web3.js';
import type { PayoutEntry } from '../functions/payments/payout-store.js';
import { dynamo, tableName } from '../functions/platform/dynamo.js';

const owners = 50;
/** The owner's 90% of a 0.05 USDC payment: an owner's twenty of them cover a first payout's cost (token account rent, about 0.31 USDC). */
const amountPerPayment = 45_000n;

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as { data: any };
}

/** `settlementAccount`: the payout offer's payTo, which holds what the owners are owed. */
export async function payoutBatch(
  platform: { baseUrl: string; adminKey: string },
  settlementAccount: string,
  payments: number,
): Promise<{ owners: number; seconds: number; paid: number }> {
  const { baseUrl, adminKey } = platform;
  const sellers = await Promise.all(
    Array.from({ length: owners }, async (_, index) => {
      const walletAddress = Keypair.generate().publicKey.toBase58();
      const user = await post(
        `${baseUrl}/api/admin/v1/users`,
        { username: `bench-payee-${Date.now().toString(36)}-${index}`, walletAddress },
        { 'x-admin-key': adminKey },
      );
      return user.data.userId as string;
    }),
  );
  const settlement = await post(`${baseUrl}/api/x402/dev/airdrop`, {
    address: settlementAccount,
    asset: 'USDC',
    amount: Number(amountPerPayment * BigInt(payments)) / 1e6,
  });
  const usdcMint = settlement.data.mint as string;
  const now = Date.now();
  for (let index = 0; index < payments; index += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, payments - index) }, (_, offset) => {
        const ownerId = sellers[(index + offset) % owners]!;
        const entry: PayoutEntry = {
          txHash: `bench${now}${index + offset}`,
          ownerId,
          asset: usdcMint,
          amount: amountPerPayment.toString(),
          payoutStatus: 'owed',
          owedOwner: ownerId,
          createdAt: new Date(now + index + offset).toISOString(),
          attempts: 0,
        };
        return dynamo().send(new PutCommand({ TableName: tableName('payouts'), Item: entry }));
      }),
    );
  }
  const started = performance.now();
  const run = await post(`${baseUrl}/api/x402/dev/payouts`, {});
  const seconds = (performance.now() - started) / 1000;
  const paid = (run.data.paid as Array<{ payments: number }>).reduce((total, payout) => total + payout.payments, 0);
  // Payments settled earlier in the same bench (the reference-client calls) are owed too and paid in the same run.
  if (paid < payments) throw new Error(`the payout run paid ${paid} of ${payments} payments: ${JSON.stringify(run.data.failed)}`);
  return { owners, seconds, paid };
}
