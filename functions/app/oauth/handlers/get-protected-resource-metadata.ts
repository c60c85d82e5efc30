import { httpHandler } from '#platform/http.js';
import { protectedResourceMetadata } from '#functions/oauth/metadata.js';
import { metadataReply } from '#functions/oauth/replies.js';
import { oauthRoutes } from '#functions/oauth/routes.js';

export const handler = httpHandler(oauthRoutes.getProtectedResourceMetadata, async ({ baseUrl }) => metadataReply(protectedResourceMetadata(baseUrl)));
