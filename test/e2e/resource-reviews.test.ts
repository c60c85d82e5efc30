import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenInstalled, givenPublishedResource, resourceInput } from '../support/resources.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

const reviews = (resourceId: string) => `/api/sdk/v1/resources/${resourceId}/reviews`;

describe('resources: reviews', () => {
  it('lets installers review once each; the reviews drive rating and reviewCount', async () => {
    // Prepare
    const resourceId = await givenPublishedResource(api, owner);
    const [ann, bob] = await Promise.all([api.givenUser(), api.givenUser()]);
    await Promise.all([givenInstalled(api, ann, resourceId), givenInstalled(api, bob, resourceId)]);
    // Act
    const first = await api.as(ann.apiKey).post(reviews(resourceId), { rating: 5, comment: 'great' });
    const second = await api.as(bob.apiKey).post(reviews(resourceId), { rating: 4 });
    const duplicate = await api.as(ann.apiKey).post(reviews(resourceId), { rating: 1 });
    const resource = await api.as(ann.apiKey).get(`/api/sdk/v1/resources/${resourceId}`);
    const metrics = await api.as(owner.apiKey).get(`/api/sdk/v1/resources/${resourceId}/metrics`);
    const listed = await api.as(bob.apiKey).get(reviews(resourceId));
    // Assess
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      reviewId: expect.stringMatching(/^rev_/),
      itemType: 'resource',
      itemId: resourceId,
      userId: ann.userId,
      rating: 5,
      comment: 'great',
      createdAt: expect.any(String),
    });
    expect(second.status).toBe(201);
    expect(duplicate.status).toBe(409);
    expect(resource.body.data).toMatchObject({ rating: 4.5, reviewCount: 2 });
    expect(metrics.body.data).toMatchObject({ rating: 4.5, reviewCount: 2 });
    expect(listed.body.data).toMatchObject({ rating: 4.5, reviewCount: 2, total: 2 });
    expect(listed.body.data.reviews.map((review: { rating: number }) => review.rating).sort()).toEqual([4, 5]);
  });

  it('refuses reviews from non-installers and from the creator (403), changing nothing', async () => {
    // Prepare
    const resourceId = await givenPublishedResource(api, owner);
    await givenInstalled(api, owner, resourceId);
    const stranger = await api.givenUser();
    // Act
    const fromStranger = await api.as(stranger.apiKey).post(reviews(resourceId), { rating: 5 });
    const fromCreator = await api.as(owner.apiKey).post(reviews(resourceId), { rating: 5 });
    const resource = await api.as(owner.apiKey).get(`/api/sdk/v1/resources/${resourceId}`);
    // Assess
    expect(fromStranger.status).toBe(403);
    expect(fromCreator.status).toBe(403);
    expect(resource.body.data).toMatchObject({ rating: 0, reviewCount: 0 });
  });

  it("answers 404 for reviews of another user's draft", async () => {
    // Prepare
    const draft = (await api.as(owner.apiKey).post('/api/sdk/v1/resources', resourceInput())).body.data.id;
    const stranger = await api.givenUser();
    // Act
    const write = await api.as(stranger.apiKey).post(reviews(draft), { rating: 3 });
    const read = await api.as(stranger.apiKey).get(reviews(draft));
    // Assess
    expect(write.status).toBe(404);
    expect(read.status).toBe(404);
  });

  it.each([
    ['a rating of 0', { rating: 0 }, 'rating'],
    ['a rating of 6', { rating: 6 }, 'rating'],
    ['a fractional rating', { rating: 4.5 }, 'rating'],
    ['no rating', { comment: 'hm' }, 'rating'],
  ])('refuses %s with VALIDATION_ERROR', async (_label, body, field) => {
    // Prepare
    const resourceId = await givenPublishedResource(api, owner);
    const user = await api.givenUser();
    await givenInstalled(api, user, resourceId);
    // Act
    const refused = await api.as(user.apiKey).post(reviews(resourceId), body);
    const resource = await api.as(user.apiKey).get(`/api/sdk/v1/resources/${resourceId}`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ field });
    expect(resource.body.data.reviewCount).toBe(0);
  });
});
