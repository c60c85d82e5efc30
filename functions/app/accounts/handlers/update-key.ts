import { httpHandler } from '#platform/http.js';
import { accountRoutes } from '#functions/accounts/routes.js';
import { accountService } from '../wiring.js';

export const handler = httpHandler(accountRoutes.updateKey, async ({ input, caller }) => accountService().updateKey(caller, input));
