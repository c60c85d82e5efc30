// Asking for a payout run now, for one owner and asset whose owed sum crossed the threshold: on AWS by invoking the
// payout function asynchronously (Lambda retries it twice).
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { PayoutRequest } from '#functions/payments/payouts.js';
import { traced } from '#platform/tracer.js';

/** `functionName`: the payout function (PAYOUT_FUNCTION_NAME), given to the functions whose route uses it. */
export function lambdaPayoutTrigger(functionName: string | undefined): (ownerId: string, asset: string) => Promise<void> {
  const client = traced(new LambdaClient({}));
  return async (ownerId, asset) => {
    if (!functionName) throw new Error('PAYOUT_FUNCTION_NAME is unset: the route needs `uses: [payoutRunner]`');
    const payload: PayoutRequest = { payoutRun: { ownerId, asset } };
    await client.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: JSON.stringify(payload) }));
  };
}
