import { reviewService } from '#functions/reviews/api.js';
import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templateReviewTarget } from '../wiring.js';

export const handler = httpHandler(templateRoutes.listTemplateReviews, ({ input, caller }) =>
  reviewService().list(templateReviewTarget(), caller.userId, input.templateId, { limit: input.limit, offset: input.offset }),
);
