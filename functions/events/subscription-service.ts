// Script event subscriptions: create, list, patch `enabled` / `conditions`,
// delete. Only the script's owner sees or changes them; another user's script is NOT_FOUND.
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId } from '#platform/ids.js';
import { compileConditionList } from './conditions/engine.js';
import { scriptDialect } from './conditions/script-dialect.js';
import type { ScriptPort } from './ports.js';
import type { Subscription } from './schemas.js';
import type { StoredSubscription, SubscriptionStore } from './subscription-store.js';

/** Bounds the fan-out of one event to one script. */
export const maxSubscriptionsPerScript = 100;

const toSubscription = ({ subscriptionId, eventType, conditions, enabled, createdAt, updatedAt }: StoredSubscription): Subscription => ({
  subscriptionId,
  eventType,
  conditions,
  enabled,
  createdAt,
  updatedAt,
});

/** The caller's own script, or NOT_FOUND (never reveal that another user's script exists). */
export async function requireOwnScript(scripts: ScriptPort, caller: Caller, scriptId: string): Promise<void> {
  const script = await scripts.describe(scriptId);
  if (!script || script.userId !== caller.userId) throw new NotFoundError('scriptId', scriptId, 'script');
}

export function createSubscriptionService(deps: { store: SubscriptionStore; scripts: ScriptPort; clock: Clock }) {
  const { store, scripts, clock } = deps;

  async function getOwn(caller: Caller, scriptId: string, subscriptionId: string): Promise<StoredSubscription> {
    await requireOwnScript(scripts, caller, scriptId);
    const subscription = await store.get(scriptId, subscriptionId);
    if (!subscription || subscription.userId !== caller.userId) throw new NotFoundError('subscriptionId', subscriptionId, 'subscription');
    return subscription;
  }

  /** A revision strictly after the previous one, so compiled conditions cached by revision are never stale. */
  function nextRevision(previous: string): string {
    const now = clock.nowIso();
    return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
  }

  return {
    async create(caller: Caller, input: { scriptId: string; eventType: string; conditions: unknown[]; enabled: boolean }) {
      compileConditionList(input.conditions, scriptDialect);
      await requireOwnScript(scripts, caller, input.scriptId);
      const existing = await store.list(input.scriptId);
      if (existing.length >= maxSubscriptionsPerScript) {
        throw new ConflictError(`a script has at most ${maxSubscriptionsPerScript} subscriptions; delete one first`, { scriptId: input.scriptId });
      }
      const now = clock.nowIso();
      const subscription: StoredSubscription = {
        subscriptionId: newId('sub'),
        scriptId: input.scriptId,
        userId: caller.userId,
        eventType: input.eventType,
        conditions: input.conditions,
        enabled: input.enabled,
        createdAt: now,
        updatedAt: now,
      };
      await store.create(subscription);
      return {
        subscriptionId: subscription.subscriptionId,
        eventType: subscription.eventType,
        enabled: subscription.enabled,
        createdAt: subscription.createdAt,
      };
    },

    async list(caller: Caller, input: { scriptId: string; limit: number; offset: number }) {
      await requireOwnScript(scripts, caller, input.scriptId);
      const all = (await store.list(input.scriptId)).filter((subscription) => subscription.userId === caller.userId);
      all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.subscriptionId.localeCompare(b.subscriptionId));
      return {
        subscriptions: all.slice(input.offset, input.offset + input.limit).map(toSubscription),
        total: all.length,
        limit: input.limit,
        offset: input.offset,
      };
    },

    async update(caller: Caller, input: { scriptId: string; subscriptionId: string; enabled?: boolean; conditions?: unknown[] }) {
      if (input.conditions) compileConditionList(input.conditions, scriptDialect);
      const current = await getOwn(caller, input.scriptId, input.subscriptionId);
      const next: StoredSubscription = {
        ...current,
        enabled: input.enabled ?? current.enabled,
        conditions: input.conditions ?? current.conditions,
        updatedAt: nextRevision(current.updatedAt),
      };
      try {
        await store.update(current, next);
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError('the subscription changed while updating; try again', { subscriptionId: input.subscriptionId });
        throw error;
      }
      return toSubscription(next);
    },

    async delete(caller: Caller, input: { scriptId: string; subscriptionId: string }) {
      const subscription = await getOwn(caller, input.scriptId, input.subscriptionId);
      try {
        await store.delete(subscription);
      } catch (error) {
        if (isConditionFailure(error)) throw new NotFoundError('subscriptionId', input.subscriptionId, 'subscription');
        throw error;
      }
      return `subscription ${input.subscriptionId} deleted`;
    },
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
