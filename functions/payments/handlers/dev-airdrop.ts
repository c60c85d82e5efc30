import { httpHandler } from '#platform/http.js';
import { airdrop } from '../local-tools.js';
import { paymentRoutes } from '../routes.js';

export const handler = httpHandler(paymentRoutes.devAirdrop, async ({ input }) => airdrop(input));
