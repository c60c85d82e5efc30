import { httpHandler } from '#platform/http.js';
import { authorizationServerMetadata } from '#functions/oauth/metadata.js';
import { metadataReply } from '#functions/oauth/replies.js';
import { oauthRoutes } from '#functions/oauth/routes.js';

export const handler = httpHandler(oauthRoutes.getAuthorizationServerMetadata, async ({ baseUrl }) => metadataReply(authorizationServerMetadata(baseUrl)));
