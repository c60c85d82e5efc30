// What payments needs from the resources and accounts areas, as one narrow port (wired in functions/app/payments/wiring.ts).
import type { MethodDefinition } from '#functions/resources/api.js';
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
  /** Every published resource: the marketplace. */
  listed(): Promise<ResourceForSale[]>;
  /** Throws VALIDATION_ERROR when `params` do not fit the method: checked before anyone pays. */
  checkParams(method: MethodForSale, params: Record<string, unknown>): void;
  /** Runs the method for an anonymous payer with the owner's credentials; errors become the answer served. */
  call(request: { resourceId: string; method: string; params: Record<string, unknown>; maxTimeoutMs: number }): Promise<ServedResponse>;
  recordRevenue(resourceId: string, amountUsd: number): Promise<void>;
  seller(userId: string): Promise<Seller | undefined>;
}

/** A query string carries text: declared numbers, booleans, arrays and objects are read back from it. */
export function paramsFromQuery(method: MethodForSale, query: Record<string, string>): Record<string, unknown> {
  const params: Record<string, unknown> = { ...query };
  for (const parameter of method.definition.parameters) {
    const text = query[parameter.name];
    if (text === undefined) continue;
    if ((parameter.type === 'number' || parameter.type === 'integer') && text.trim() !== '' && Number.isFinite(Number(text)))
      params[parameter.name] = Number(text);
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
