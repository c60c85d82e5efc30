import { httpHandler } from '#platform/http.js';
import { oauthReply } from '#functions/oauth/replies.js';
import { oauthRoutes } from '#functions/oauth/routes.js';
import { oauthService } from '../wiring.js';

export const handler = httpHandler(oauthRoutes.exchangeToken, ({ input, headers }) => oauthReply(() => oauthService().token(input, headers.authorization)));
