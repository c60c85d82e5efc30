import { paymentService } from '#functions/app/payments/wiring.js';
import { discoveryItems } from '#functions/payments/discovery.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { Reply, httpHandler } from '#platform/http.js';

// A discovery document, not the envelope: x402 catalogs read it as it is.
export const handler = httpHandler(paymentRoutes.getX402Discovery, async ({ input, baseUrl }) => {
  const { items, total } = await paymentService().offeredListings(baseUrl, input);
  return new Reply(200, {
    x402Version: 2,
    items: items.flatMap((item) => discoveryItems(item, baseUrl)),
    pagination: { limit: input.limit, offset: input.offset, total },
  });
});
