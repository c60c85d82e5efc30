import * as z from 'zod';
import { IsoDate } from '#platform/schemas.js';

export const reviewItemTypes = ['resource', 'script', 'template'] as const;
export type ReviewItemType = (typeof reviewItemTypes)[number];

/** Body of `POST /api/sdk/v1/{resources|scripts|templates}/{id}/reviews`; each area adds its id field. */
export const reviewFields = {
  rating: z.number().int().min(1).max(5),
  comment: z.string().trim().max(2000).optional(),
};

export const Review = z.object({
  reviewId: z.string(),
  itemType: z.enum(reviewItemTypes),
  itemId: z.string(),
  userId: z.string(),
  rating: z.number(),
  comment: z.string().nullable(),
  createdAt: IsoDate,
});
export type Review = z.infer<typeof Review>;

export const ReviewList = z.object({
  reviews: z.array(Review),
  rating: z.number(),
  reviewCount: z.number(),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
});
