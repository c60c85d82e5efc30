// searchFlows over the caller's own flows: variant B when the body has any of `query`,
// `trigger`, `scope`; variant A otherwise. A user has at most 1,000 flows: their searchable fields come from a
// per-process cache that one consistent read of the owner's revision validates, the filters run here, and only
// the page's execution counters (which change with every run) are read fresh.
import { type FlowItem, flowWarnings } from './model.js';
import type { SearchFlowsInput } from './schemas.js';
import type { FlowCounters, FlowStore } from './store.js';

/** What the filters and both variants show, but the execution counters; the prompt and runs stay in the table. */
export const searchedFields = ['flowId', 'title', 'description', 'status', 'scope', 'trigger', 'scriptId', 'executionType', 'createdAt'] as const;
type SearchedFlow = Pick<FlowItem, (typeof searchedFields)[number]>;

const defaultLimit = { A: 20, B: 50 } as const;
/** Users whose flows one process keeps. */
const cachedUsers = 1000;

export const isVariantB = (input: SearchFlowsInput) => input.query !== undefined || input.trigger !== undefined || input.scope !== undefined;

function matchesB(flow: SearchedFlow, input: SearchFlowsInput, query: string | undefined): boolean {
  const { trigger } = input;
  if (input.status && flow.status !== input.status) return false;
  if (input.scope && flow.scope !== input.scope) return false;
  if (query && !flow.title.toLowerCase().includes(query) && !flow.description.toLowerCase().includes(query)) return false;
  if (trigger?.type && flow.trigger.type !== trigger.type) return false;
  if (trigger?.eventType && (flow.trigger.type !== 'event' || flow.trigger.config.eventType !== trigger.eventType)) return false;
  if (trigger?.cronExpression && (flow.trigger.type !== 'time' || flow.trigger.config.cronExpression !== trigger.cronExpression.trim().split(/\s+/).join(' ')))
    return false;
  return true;
}

const minimal = (flow: SearchedFlow) => ({
  id: flow.flowId,
  title: flow.title,
  status: flow.status,
  triggerType: flow.trigger.type,
  isActive: flow.status === 'active',
});

/** `llmConfigured`: read per search, as getFlow does, for the warnings of the summary and variant B items. */
export function createFlowSearch(flows: Pick<FlowStore, 'getOwner' | 'listByUser' | 'counters'>, llmConfigured: () => boolean) {
  const cache = new Map<string, { revision: number; items: SearchedFlow[] }>();

  async function flowsOf(userId: string): Promise<SearchedFlow[]> {
    // Read before the list: a change after this read bumps the revision again, so the next search refetches.
    const revision = (await flows.getOwner(userId))?.revision ?? 0;
    const cached = cache.get(userId);
    if (cached?.revision === revision) return cached.items;
    const items = (await flows.listByUser(userId, searchedFields)) as SearchedFlow[];
    cache.delete(userId);
    if (cache.size >= cachedUsers) cache.delete(cache.keys().next().value!);
    cache.set(userId, { revision, items });
    return items;
  }

  async function countersOf(page: SearchedFlow[]): Promise<(flow: SearchedFlow) => Omit<FlowCounters, 'flowId'>> {
    const found = new Map((await flows.counters(page.map((flow) => flow.flowId))).map((item) => [item.flowId, item]));
    return (flow) => ({ executionCount: found.get(flow.flowId)?.executionCount ?? 0, lastExecutedAt: found.get(flow.flowId)?.lastExecutedAt ?? null });
  }

  return {
    async search(userId: string, input: SearchFlowsInput) {
      const mine = await flowsOf(userId);
      if (isVariantB(input)) {
        const query = input.query?.trim().toLowerCase();
        const matching = mine.filter((flow) => matchesB(flow, input, query));
        const limit = input.limit ?? defaultLimit.B;
        const page = matching.slice(input.offset, input.offset + limit);
        const counters = await countersOf(page);
        const configured = llmConfigured();
        const data = page.map((flow) => ({
          id: flow.flowId,
          title: flow.title,
          description: flow.description,
          status: flow.status,
          trigger: flow.trigger,
          ...counters(flow),
          warnings: flowWarnings(flow, configured),
        }));
        return { variant: 'B' as const, data, meta: { total: matching.length, limit, offset: input.offset } };
      }
      const matching = mine.filter(
        (flow) => (!input.status || flow.status === input.status) && (!input.triggerType || flow.trigger.type === input.triggerType),
      );
      const page = matching.slice(input.offset, input.offset + (input.limit ?? defaultLimit.A));
      if (input.detail !== 'summary') return { variant: 'A' as const, data: { count: matching.length, flows: page.map(minimal) } };
      const counters = await countersOf(page);
      const configured = llmConfigured();
      const flowsOut = page.map((flow) => ({
        ...minimal(flow),
        description: flow.description,
        cronExpression: flow.trigger.type === 'time' ? flow.trigger.config.cronExpression : null,
        scriptId: flow.scriptId,
        ...counters(flow),
        createdAt: flow.createdAt,
        warnings: flowWarnings(flow, configured),
      }));
      return { variant: 'A' as const, data: { count: matching.length, flows: flowsOut } };
    },
  };
}

export type FlowSearch = ReturnType<typeof createFlowSearch>;
