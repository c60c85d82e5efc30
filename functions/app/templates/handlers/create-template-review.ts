import { reviewService } from '#functions/reviews/api.js';
import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templateReviewTarget } from '../wiring.js';

export const handler = httpHandler(templateRoutes.createTemplateReview, ({ input, caller }) =>
  reviewService().add(templateReviewTarget(), caller.userId, input.templateId, { rating: input.rating, comment: input.comment }),
);
