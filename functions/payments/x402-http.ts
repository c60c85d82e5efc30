// Paid calls over HTTP: the 402 body of the design (and x402 v2's PAYMENT-REQUIRED), or the resource's answer
// with the settlement proof (X-PAYMENT-RESPONSE, or PAYMENT-RESPONSE for v2), both base64 JSON as x402 sends them.
import { Reply, httpHandler } from '#platform/http.js';
import { httpDiscovery } from './bazaar.js';
import { toV2PaymentRequired } from './requirements.js';
import type { paymentRoutes } from './routes.js';
import type { PaymentRequiredBody } from './schemas.js';
import type { PaidCallOutcome, PaidCallRequest, PaymentService } from './service.js';
import { encodeHeader, readPaymentHeader, x402Headers } from './x402-codec.js';

export function paidCallReply(outcome: PaidCallOutcome): Reply {
  if (outcome.kind === 'served') {
    const { response, settlement, version } = outcome;
    return new Reply(response.status, response.body, { 'Content-Type': response.contentType, [x402Headers[version].response]: encodeHeader(settlement) });
  }
  if (outcome.kind === 'waiting') return Reply.data(outcome.waiting, 202);
  const { accepts, error, listing } = outcome;
  const body: PaymentRequiredBody & Record<string, unknown> = {
    x402Version: 1,
    error: error?.code ?? null,
    ...(error && { message: error.message }),
    // The reference facilitator's name for a refusal of a reference-client payment.
    ...(error?.extras.reason && { reason: error.extras.reason }),
    accepts,
    ...(error?.extras.settlement && { settlement: error.extras.settlement }),
    ...(error?.extras.earlierResponse && { earlierResponse: error.extras.earlierResponse }),
  };
  const headers: Record<string, string> = {
    [x402Headers[2].required]: encodeHeader(
      toV2PaymentRequired(accepts, error?.message ?? 'payment required: send PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (v1)', httpDiscovery(listing.method)),
    ),
  };
  if (error?.extras.settlement) headers[x402Headers[outcome.version].response] = encodeHeader(error.extras.settlement);
  return new Reply(402, body, headers);
}

/** Both paid-call routes: GET takes params from the query string, POST from the JSON body; `payments` from the area's composition. */
export const paidCallHandler = (
  route: typeof paymentRoutes.getPaidResource | typeof paymentRoutes.callPaidResource,
  payments: () => Pick<PaymentService, 'paidCall'>,
  /** The agent budget of the API key the call presents, if any; `approvalId` from X-Approval-Id. */
  admission: (headers: Record<string, string | undefined>) => Promise<((approvalId: string | undefined) => PaidCallRequest['admit']) | undefined>,
) =>
  httpHandler(route, async ({ input, baseUrl, headers, event, rawBody }) => {
    const admit = (await admission(headers))?.(headers['x-approval-id']);
    const { resourceId, methodName } = input;
    const params =
      route.method === 'GET'
        ? { query: { ...event.queryStringParameters } as Record<string, string> }
        : { body: rawBody.trim() ? (JSON.parse(rawBody) as Record<string, unknown>) : {} };
    return paidCallReply(await payments().paidCall({ resourceId, methodName, baseUrl, params, payment: readPaymentHeader(headers), ...(admit && { admit }) }));
  });
