// Reviews behind `rating` and `reviewCount` of resources, scripts and templates: one per user and
// item, by installers only, never by the item's creator. Each area supplies its item's table and its own checks.
import { type Clock, systemClock } from '#platform/clock.js';
import { ConflictError, ForbiddenError, NotFoundError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import type { Review, ReviewItemType } from './schemas.js';
import { type RatingUpdate, type ReviewRecord, type ReviewStore, createReviewStore } from './store.js';

export interface ReviewTarget {
  itemType: ReviewItemType;
  /** The item's own store's update of its `ratingSum` and `reviewCount` (the reviews area never names that table). */
  ratingUpdate(itemId: string, rating: number): RatingUpdate;
  /** The item's creator, if `userId` may see the item; NotFoundError otherwise (a private item is never revealed). */
  visibleOwner(userId: string, itemId: string): Promise<string>;
  isInstaller(userId: string, itemId: string): Promise<boolean>;
}

export const averageRating = (ratingSum: number, reviewCount: number) => (reviewCount ? Math.round((ratingSum / reviewCount) * 100) / 100 : 0);

const reviewView = ({ itemKey: _key, ...review }: ReviewRecord): Review => ({ ...review, comment: review.comment ?? null });

export function createReviewService(deps: { store: ReviewStore; clock: Clock }) {
  return {
    async add(target: ReviewTarget, userId: string, itemId: string, input: { rating: number; comment?: string }): Promise<Review> {
      const ownerId = await target.visibleOwner(userId, itemId);
      if (ownerId === userId) throw new ForbiddenError(`the creator of a ${target.itemType} cannot review it`, { [`${target.itemType}Id`]: itemId });
      if (!(await target.isInstaller(userId, itemId)))
        throw new ForbiddenError(`only users who installed this ${target.itemType} can review it`, { [`${target.itemType}Id`]: itemId });
      const review: ReviewRecord = {
        itemKey: `${target.itemType}#${itemId}`,
        reviewId: newId('rev'),
        itemType: target.itemType,
        itemId,
        userId,
        rating: input.rating,
        comment: input.comment ?? null,
        createdAt: deps.clock.nowIso(),
      };
      const refusal = await deps.store.add(review, target.ratingUpdate(itemId, input.rating));
      if (refusal === 'duplicate') throw new ConflictError(`you have already reviewed this ${target.itemType}`, { [`${target.itemType}Id`]: itemId });
      if (refusal === 'missing') throw new NotFoundError(`${target.itemType}Id`, itemId, target.itemType);
      return reviewView(review);
    },

    /** Newest first, with the aggregate they make. */
    async list(target: ReviewTarget, userId: string, itemId: string, page: { limit: number; offset: number }) {
      await target.visibleOwner(userId, itemId);
      const all = (await deps.store.list(`${target.itemType}#${itemId}`)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      const ratingSum = all.reduce((sum, review) => sum + review.rating, 0);
      return {
        reviews: all.slice(page.offset, page.offset + page.limit).map(reviewView),
        rating: averageRating(ratingSum, all.length),
        reviewCount: all.length,
        total: all.length,
        ...page,
      };
    },
  };
}

export type ReviewService = ReturnType<typeof createReviewService>;

let service: ReviewService | undefined;
export const reviewService = (): ReviewService => (service ??= createReviewService({ store: createReviewStore(), clock: systemClock }));
