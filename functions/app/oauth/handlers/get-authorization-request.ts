import { httpHandler } from '#platform/http.js';
import { oauthRoutes } from '#functions/oauth/routes.js';
import { oauthService } from '../wiring.js';

export const handler = httpHandler(oauthRoutes.getAuthorizationRequest, ({ input, caller }) => oauthService().describeRequest(caller, input.requestId));
