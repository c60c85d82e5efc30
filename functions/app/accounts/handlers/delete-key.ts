import { Reply, httpHandler } from '#platform/http.js';
import { accountRoutes } from '#functions/accounts/routes.js';
import { accountService } from '../wiring.js';

export const handler = httpHandler(accountRoutes.deleteKey, async ({ input, caller }) =>
  Reply.message(await accountService().revokeKey(caller.userId, input.keyId)),
);
