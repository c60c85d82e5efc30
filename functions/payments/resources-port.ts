// What payments needs from the resources and accounts areas, as one narrow port, wired to their exports.
import { createAccountStore } from '#functions/accounts/store.js';
import { type MethodDefinition, checkParams } from '#functions/resources/method-definitions.js';
import { recordRevenue, resourceCaller, resourceService } from '#functions/resources/wiring.js';
import { AppError } from '#platform/errors.js';
import { errorBody } from '#platform/http.js';
import type { ServedResponse } from './errors.js';

export interface MethodForSale {
  name: string;
  description?: string;
  /** USD per call; 0 when the method is free. */
  priceUsd: number;
  definition: MethodDefinition;
}

export interface ResourceForSale {
  resourceId: string;
  name: string;
  description: string;
  published: boolean;
  ownerId: string;
  methods: MethodForSale[];
}

export interface Seller {
  userId: string;
  username: string;
  walletAddress: string | null;
}

export interface PaymentResources {
  /** NOT_FOUND when the resource does not exist. */
  get(resourceId: string): Promise<ResourceForSale>;
  /** Throws VALIDATION_ERROR when `params` do not fit the method: checked before anyone pays. */
  checkParams(method: MethodForSale, params: Record<string, unknown>): void;
  /** Runs the method for an anonymous payer with the owner's credentials; errors become the answer served. */
  call(request: { resourceId: string; method: string; params: Record<string, unknown>; maxTimeoutMs: number }): Promise<ServedResponse>;
  recordRevenue(resourceId: string, amountUsd: number): Promise<void>;
  seller(userId: string): Promise<Seller | undefined>;
}

/** Method `cost`, else the resource's `basePrice`; the `free` model costs nothing (the resources area prices calls alike). */
const priceOf = (pricing: { model: string; basePrice?: number }, methodCost: number | undefined) => (pricing.model === 'free' ? 0 : (methodCost ?? pricing.basePrice ?? 0));

/** A query string carries text: declared numbers, booleans, arrays and objects are read back from it. */
export function paramsFromQuery(method: MethodForSale, query: Record<string, string>): Record<string, unknown> {
  const params: Record<string, unknown> = { ...query };
  for (const parameter of method.definition.parameters) {
    const text = query[parameter.name];
    if (text === undefined) continue;
    if ((parameter.type === 'number' || parameter.type === 'integer') && text.trim() !== '' && Number.isFinite(Number(text))) params[parameter.name] = Number(text);
    else if (parameter.type === 'boolean' && (text === 'true' || text === 'false')) params[parameter.name] = text === 'true';
    else if (parameter.type === 'object' || parameter.type === 'array' || parameter.type.endsWith('[]')) {
      try {
        params[parameter.name] = JSON.parse(text);
      } catch {
        params[parameter.name] = parameter.type === 'object' ? text : text.split(',');
      }
    }
  }
  return params;
}

const served = (status: number, body: unknown): ServedResponse =>
  typeof body === 'string'
    ? { status, contentType: 'text/plain; charset=utf-8', body }
    : { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };

export function productionResources(): PaymentResources {
  const users = createAccountStore();
  return {
    async get(resourceId) {
      const resource = await resourceService().getForCall(resourceId);
      return {
        resourceId: resource.resourceId,
        name: resource.name,
        description: resource.description,
        published: resource.status === 'published',
        ownerId: resource.ownerId,
        methods: resource.methods.map((method) => ({ name: method.name, description: method.description, priceUsd: priceOf(resource.pricing, method.cost), definition: method })),
      };
    },
    checkParams: (method, params) => checkParams(method.definition, params),
    async call(request) {
      try {
        const result = await resourceCaller().callAsOwner(request);
        return served(result.status, result.data ?? '');
      } catch (error) {
        // The payment has settled: a refusal or upstream failure is the answer the payer bought, kept like any other.
        if (error instanceof AppError) return served(error.status, errorBody(error));
        throw error;
      }
    },
    recordRevenue,
    async seller(userId) {
      const user = await users.getUser(userId);
      return user && { userId: user.userId, username: user.username, walletAddress: user.walletAddress };
    },
  };
}
