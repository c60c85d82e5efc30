import { httpHandler } from '#platform/http.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { runHistory } from '../wiring.js';

export const handler = httpHandler(flowRoutes.listExecutions, ({ input, caller }) => runHistory().list(caller.userId, input));
