// Resource lifecycle (Resource): create (draft), PATCH with versions, publish checks, unpublish,
// delete, the marketplace, creator metrics, and what payments reads and writes.
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { ConflictError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId } from '#platform/ids.js';
import type { Access } from './access.js';
import type { InstallationStore } from './installation-store.js';
import { assertPublishable } from './publish-checks.js';
import { averageRating } from '#functions/reviews/api.js';
import { type Endpoint, type ResourceDefinition, type ResourceItem, type ResourceVersion, marketplaceView, resourceView, summaryView } from './records.js';
import type { CreateResourceInput, EndpointInput, Pricing, UpdateResourceInput } from './schemas.js';
import type { ResourceStore } from './store.js';

const freePricing: Pricing = { model: 'free', basePrice: 0, currency: 'USDC' };

const definedOnly = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as Partial<T>;

const endpointFrom = (input: EndpointInput): Endpoint => ({
  ...definedOnly(input),
  authentication: input.authentication ?? 'none',
  methods: input.methods ?? [],
});

const definitionOf = (item: ResourceDefinition): ResourceDefinition => ({
  resourceType: item.resourceType,
  endpoint: item.endpoint,
  ...(item.openApiSpec && { openApiSpec: item.openApiSpec }),
  pricing: item.pricing,
  rateLimits: item.rateLimits,
});

const snapshotOf = (resourceId: string, version: number, definition: ResourceDefinition, createdAt: string): ResourceVersion => ({
  resourceId,
  version,
  ...definition,
  createdAt,
});

const round = (value: number, digits = 6) => Math.round(value * 10 ** digits) / 10 ** digits;

/** What a paid call needs to know about a resource. */
const forCall = (item: ResourceItem) => ({
  resourceId: item.resourceId,
  name: item.name,
  description: item.description,
  resourceType: item.resourceType,
  status: item.status,
  ownerId: item.ownerId,
  version: item.version,
  pricing: item.pricing,
  authentication: item.endpoint.authentication,
  methods: item.endpoint.methods,
});

export function createResourceService(deps: { resources: ResourceStore; installations: InstallationStore; access: Access; clock: Clock }) {
  const { resources, installations, access, clock } = deps;

  async function save(current: ResourceItem, change: Parameters<ResourceStore['update']>[2]): Promise<void> {
    try {
      await resources.update(current.resourceId, { version: current.version, status: current.status }, change);
    } catch (error) {
      if (isConditionFailure(error))
        throw new ConflictError(`resource ${current.resourceId} changed meanwhile; read it again and retry`, { resourceId: current.resourceId });
      throw error;
    }
  }

  return {
    async create(caller: Caller, input: CreateResourceInput) {
      const now = clock.nowIso();
      const definition: ResourceDefinition = {
        resourceType: input.resourceType,
        endpoint: endpointFrom(input.endpoint),
        ...(input.openApiSpec && { openApiSpec: input.openApiSpec }),
        pricing: input.pricing ?? freePricing,
        rateLimits: input.rateLimits ?? [],
      };
      const item: ResourceItem = {
        ...definition,
        resourceId: newId('res'),
        ownerId: caller.userId,
        name: input.name,
        description: input.description,
        ...(input.category && { category: input.category }),
        tags: input.tags ?? [],
        status: 'draft',
        version: 1,
        installCount: 0,
        ratingSum: 0,
        reviewCount: 0,
        retiredCalls: 0,
        retiredFailedCalls: 0,
        revenueUsd: 0,
        createdAt: now,
        updatedAt: now,
      };
      await resources.create(item, snapshotOf(item.resourceId, 1, definition, now));
      return { id: item.resourceId, name: item.name, resourceType: item.resourceType, status: item.status, createdAt: item.createdAt };
    },

    async get(caller: Caller, resourceId: string) {
      return resourceView(await access.visible(caller.userId, resourceId));
    },

    async listOwn(caller: Caller, query: { status?: 'draft' | 'published'; limit: number; offset: number }) {
      const own = (await resources.listByOwner(caller.userId)).filter((item) => !query.status || item.status === query.status);
      return { resources: own.slice(query.offset, query.offset + query.limit).map(summaryView), total: own.length, limit: query.limit, offset: query.offset };
    },

    /**
     * Metadata changes apply in place; a change of what calls depend on (endpoint, methods, OpenAPI document, pricing,
     * rate limits) makes a new version, and installations keep theirs until they upgrade. A published resource must
     * still pass the publish checks afterwards.
     */
    async update(caller: Caller, input: UpdateResourceInput) {
      const current = await access.owned(caller.userId, input.resourceId, 'change');
      const endpointChanged = input.endpoint !== undefined || input.methods !== undefined;
      const endpoint: Endpoint = endpointChanged
        ? { ...current.endpoint, ...definedOnly(input.endpoint ?? {}), ...(input.methods && { methods: input.methods }) }
        : current.endpoint;
      const definitionChanged = endpointChanged || [input.pricing, input.openApiSpec, input.rateLimits].some((value) => value !== undefined);
      const now = clock.nowIso();
      const next: ResourceItem = {
        ...current,
        ...definedOnly({
          description: input.description,
          category: input.category,
          tags: input.tags,
          pricing: input.pricing,
          openApiSpec: input.openApiSpec,
          rateLimits: input.rateLimits,
        }),
        endpoint,
        version: definitionChanged ? current.version + 1 : current.version,
        updatedAt: now,
      };
      if (current.status === 'published') await assertPublishable(next);
      const { description, category, tags, updatedAt, version } = next;
      await save(current, {
        set: { description, category, tags, updatedAt, ...(definitionChanged && { ...definitionOf(next), version }) },
        ...(definitionChanged && { snapshot: snapshotOf(current.resourceId, version, definitionOf(next), now) }),
      });
      return resourceView(next);
    },

    async publish(caller: Caller, input: { resourceId: string; pricing?: Pricing; category?: string; tags?: string[] }) {
      const current = await access.owned(caller.userId, input.resourceId, 'publish');
      if (current.status === 'published')
        throw new ConflictError(`resource ${current.resourceId} is already published`, { resourceId: current.resourceId, status: current.status });
      const now = clock.nowIso();
      const version = input.pricing ? current.version + 1 : current.version;
      const next: ResourceItem = {
        ...current,
        ...definedOnly({ category: input.category, tags: input.tags, pricing: input.pricing }),
        version,
        status: 'published',
        listing: 'published',
        publishedAt: now,
        updatedAt: now,
      };
      await assertPublishable(next);
      await save(current, {
        set: {
          status: 'published',
          listing: 'published',
          publishedAt: now,
          updatedAt: now,
          category: next.category,
          tags: next.tags,
          ...(input.pricing && { pricing: next.pricing, version }),
        },
        ...(input.pricing && { snapshot: snapshotOf(current.resourceId, version, definitionOf(next), now) }),
      });
      return { id: current.resourceId, status: next.status, publishedAt: now };
    },

    /** Prevents new installs; existing installations keep working. */
    async unpublish(caller: Caller, resourceId: string) {
      const current = await access.owned(caller.userId, resourceId, 'unpublish');
      if (current.status !== 'published') throw new ConflictError(`resource ${resourceId} is not published`, { resourceId, status: current.status });
      await save(current, { set: { status: 'draft', updatedAt: clock.nowIso() }, remove: ['listing', 'publishedAt'] });
      return { id: resourceId, status: 'draft' as const };
    },

    async delete(caller: Caller, resourceId: string) {
      const current = await access.owned(caller.userId, resourceId, 'delete');
      const refuse = (count: number) =>
        new ConflictError(`resource ${resourceId} has ${count} active installation${count === 1 ? '' : 's'}; it can be deleted once they are uninstalled`, {
          resourceId,
          activeInstallations: count,
        });
      if (current.installCount > 0) throw refuse(current.installCount);
      try {
        await resources.delete(resourceId);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const now = await resources.get(resourceId);
        if (!now) throw new NotFoundError('resourceId', resourceId, 'resource');
        throw refuse(now.installCount);
      }
      return `resource ${resourceId} deleted`;
    },

    /** The published set comes from the sparse index and is filtered here: fine while it is thousands, not millions. */
    async marketplace(query: { category?: string; tags?: string[]; search?: string; limit: number; offset: number }) {
      const category = query.category?.toLowerCase();
      const tags = query.tags?.map((tag) => tag.toLowerCase()) ?? [];
      const search = query.search?.trim().toLowerCase();
      const matching = (await resources.listPublished()).filter(
        (item) =>
          (!category || item.category?.toLowerCase() === category) &&
          (tags.length === 0 || item.tags.some((tag) => tags.includes(tag.toLowerCase()))) &&
          (!search || item.name.toLowerCase().includes(search) || item.description.toLowerCase().includes(search)),
      );
      return {
        resources: matching.slice(query.offset, query.offset + query.limit).map(marketplaceView),
        total: matching.length,
        limit: query.limit,
        offset: query.offset,
      };
    },

    /**
     * The interface Authentication 6: creator only. Active installations hold their own counters (so calls never contend on
     * the resource item); the resource holds what uninstalled ones and x402 calls left. `totalUsers`: active installations.
     */
    async metrics(caller: Caller, resourceId: string) {
      const item = await access.owned(caller.userId, resourceId, 'read the metrics of');
      const active = await installations.listByResource(resourceId);
      const sum = (field: 'totalCalls' | 'failedCalls' | 'totalCost') => active.reduce((total, installation) => total + (installation[field] ?? 0), 0);
      const totalCalls = item.retiredCalls + sum('totalCalls');
      const failedCalls = item.retiredFailedCalls + sum('failedCalls');
      return {
        resourceId,
        totalUsers: active.length,
        totalCalls,
        failedCalls,
        errorRate: totalCalls ? round(failedCalls / totalCalls, 4) : 0,
        totalRevenue: round(item.revenueUsd + sum('totalCost')),
        rating: averageRating(item.ratingSum, item.reviewCount),
        reviewCount: item.reviewCount,
        installCount: item.installCount,
      };
    },

    /** For payments: what a paid call needs to know about a resource, whoever asks. NOT_FOUND when it does not exist. */
    async getForCall(resourceId: string) {
      const item = await resources.get(resourceId);
      if (!item) throw new NotFoundError('resourceId', resourceId, 'resource');
      return forCall(item);
    },

    /** For payments: the marketplace (every published resource) as a paid call sees each. */
    listedForCall: async () => (await resources.listPublished()).map(forCall),

    /** For payments: adds a settled payment's USD value to the resource's revenue (atomic ADD). */
    async recordRevenue(resourceId: string, amountUsd: number): Promise<void> {
      if (!Number.isFinite(amountUsd) || amountUsd < 0) throw new ValidationError('amountUsd', amountUsd, 'must be a finite amount of at least 0');
      if (!(await resources.addRevenue(resourceId, amountUsd))) throw new NotFoundError('resourceId', resourceId, 'resource');
    },
  };
}

export type ResourceService = ReturnType<typeof createResourceService>;
