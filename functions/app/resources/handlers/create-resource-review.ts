import { reviewService } from '#functions/reviews/api.js';
import { httpHandler } from '#platform/http.js';
import { resourceReviewTarget } from '../wiring.js';
import { resourceRoutes } from '#functions/resources/routes.js';

export const handler = httpHandler(resourceRoutes.createResourceReview, ({ input, caller }) =>
  reviewService().add(resourceReviewTarget(), caller.userId, input.resourceId, { rating: input.rating, comment: input.comment }),
);
