// The reviews area's facade: the review service each rated area's handlers call with that area's review target, and
// the rating update each rated area's store builds on its own table.
export { type ReviewTarget, averageRating, reviewService } from './reviews.js';
export { ratingUpdate } from './store.js';
