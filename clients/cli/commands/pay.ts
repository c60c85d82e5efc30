// `platform pay <url>`: answers a paid route's 402 with a Solana payment signed by --keypair, and prints the answer.
import { readFileSync } from 'node:fs';
import type { Keypair } from '@solana/web3.js';
import type { Command } from 'commander';
import { errorOf } from '../../typescript/src/index.js';
import { UsageError, optionsOf, output, parseJsonOption, settings } from '../context.js';

/** A keypair file as `solana-keygen` writes it: a JSON array of the 64 secret key bytes. */
async function readKeypair(path: string): Promise<Keypair> {
  const { Keypair } = await import('@solana/web3.js');
  const bytes = parseJsonOption('keypair', readFileSync(path, 'utf8'));
  if (!Array.isArray(bytes) || bytes.length !== 64) throw new UsageError(`${path} is not a Solana keypair file (a JSON array of 64 numbers)`);
  return Keypair.fromSecretKey(Uint8Array.from(bytes as number[]));
}

export function registerPayCommand(program: Command): void {
  program
    .command('pay <url>')
    .description('call a paid route (x402): pay its price in USDC (or --asset SOL) from --keypair, print the answer and the settlement')
    .requiredOption('--keypair <file>', 'the payer: a Solana keypair file (JSON array of 64 bytes)')
    .option('--asset <asset>', 'USDC or SOL', 'USDC')
    .option('--rpc <url>', 'Solana JSON-RPC for the recent blockhash (default: <base URL>/solana, the local bank)')
    .option('--method <method>', 'GET or POST', 'GET')
    .option('--body <json>', 'JSON body of a POST')
    .action(async (url: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      // Loaded here: the Solana libraries would slow every other command's start.
      const { Connection } = await import('@solana/web3.js');
      const { createPaymentHeader, decodePaymentResponse, selectOffer } = await import('../../../functions/payments/client.js');
      const payer = await readKeypair(options.keypair!);
      const body = options.body === undefined ? undefined : JSON.stringify(parseJsonOption('body', options.body));
      const request = (headers: Record<string, string>) =>
        fetch(url, { method: options.method, headers: { ...(body && { 'content-type': 'application/json' }), ...headers }, body });
      const offered = await request({});
      if (offered.status !== 402) throw new UsageError(`${url} answered ${offered.status}, not 402: nothing to pay`);
      const offer = selectOffer((await offered.json()) as never, options.asset);
      const rpc = options.rpc ?? `${settings(options).baseUrl}/solana`;
      const { blockhash } = await new Connection(rpc, 'confirmed').getLatestBlockhash();
      const paid = await request({ 'X-PAYMENT': createPaymentHeader(offer, payer, blockhash) });
      const text = await paid.text();
      const answer = text ? (JSON.parse(text) as unknown) : null;
      if (!paid.ok) throw errorOf(paid.status, answer, paid.headers.get('x-request-id'));
      const proof = paid.headers.get('x-payment-response');
      const settlement = proof ? decodePaymentResponse(proof) : null;
      output(options, { answer, settlement }, () => [
        `paid ${offer.maxAmountRequired} atomic ${offer.extra.symbol} in transaction ${settlement?.transaction ?? '(none)'}`,
        JSON.stringify(answer, null, 2),
      ]);
    });
}
