import { httpHandler } from '#platform/http.js';
import { reviewService } from '#functions/reviews/api.js';
import { scriptReviewTarget } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(scriptRoutes.createScriptReview, async ({ input, caller }) => {
  const { scriptId, ...review } = input;
  return reviewService().add(scriptReviewTarget(), caller.userId, scriptId, review);
});
