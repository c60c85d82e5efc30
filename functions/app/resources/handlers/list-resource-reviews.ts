import { reviewService } from '#functions/reviews/api.js';
import { httpHandler } from '#platform/http.js';
import { resourceReviewTarget } from '../wiring.js';
import { resourceRoutes } from '#functions/resources/routes.js';

export const handler = httpHandler(resourceRoutes.listResourceReviews, ({ input, caller }) =>
  reviewService().list(resourceReviewTarget(), caller.userId, input.resourceId, { limit: input.limit, offset: input.offset }),
);
