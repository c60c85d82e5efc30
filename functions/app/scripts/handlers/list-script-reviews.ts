import { reviewService } from '#functions/reviews/api.js';
import { httpHandler } from '#platform/http.js';
import { scriptReviewTarget } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(scriptRoutes.listScriptReviews, ({ input, caller }) =>
  reviewService().list(scriptReviewTarget(), caller.userId, input.scriptId, { limit: input.limit, offset: input.offset }),
);
