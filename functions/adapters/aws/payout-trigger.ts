// Asking for a payout run now, for one owner and asset whose owed sum crossed the threshold: on AWS by invoking the
// payout function asynchronously (Lambda retries it twice).
import type { PayoutRequest } from '#functions/payments/ports.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

/** `functionName`: the payout function (PAYOUT_FUNCTION_NAME), given to the functions whose route uses it. */
export function lambdaPayoutTrigger(functionName: string | undefined): (ownerId: string, asset: string) => Promise<void> {
  const lambda = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-lambda');
    return { sdk, client: traced(new sdk.LambdaClient({})) };
  });
  return async (ownerId, asset) => {
    if (!functionName) throw new Error('PAYOUT_FUNCTION_NAME is unset: the route needs `uses: [payoutRunner]`');
    const payload: PayoutRequest = { payoutRun: { ownerId, asset } };
    const { sdk, client } = await lambda();
    await client.send(new sdk.InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: JSON.stringify(payload) }));
  };
}
