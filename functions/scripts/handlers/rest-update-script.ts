import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '../routes.js';
import { scriptService } from '../service.js';
import { rest } from '../views.js';

export const handler = httpHandler(scriptRoutes.restUpdateScript, async ({ input, caller }) => rest.script((await scriptService().update(caller.userId, input)).script));
