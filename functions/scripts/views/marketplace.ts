// Marketplace listing of scripts: the filters and sorts of listMarketplaceScripts and of the REST marketplace.
import { averageRating } from '#functions/reviews/api.js';
import type { Script } from '../model.js';
import type { MarketplaceQuery } from '../schemas.js';

/** SDK filters and sorts; REST's marketplace uses category, tags and search of them. */
export type MarketplaceFilter = Partial<Omit<MarketplaceQuery, 'category' | 'limit' | 'offset'>> & { category?: string };

export const ratingOf = (script: Script) => averageRating(script.ratingSum ?? 0, script.reviewCount ?? 0);

/** Installs per age, with gravity (as news sites rank): new scripts that people install rise, old ones sink. */
export function trendingScore(script: Script, now: number): number {
  const ageDays = (now - Date.parse(script.publishedAt ?? script.createdAt)) / 86_400_000;
  return script.installCount / (Math.max(0, ageDays) + 2) ** 1.5;
}

const matchesSearch = (script: Script, search: string) => {
  const needle = search.toLowerCase();
  return [script.name, script.description, ...script.tags].some((text) => text.toLowerCase().includes(needle));
};

type SortKey = MarketplaceQuery['sortBy'];
const sortValue: Record<SortKey, (script: Script, now: number) => number | string> = {
  rating: ratingOf,
  installCount: (script) => script.installCount,
  trendingScore,
  publishedAt: (script) => script.publishedAt ?? '',
  name: (script) => script.name.toLowerCase(),
};

export function filterMarketplace(scripts: Script[], query: MarketplaceFilter, now: number): Script[] {
  const filtered = scripts.filter(
    (script) =>
      (query.name === undefined || script.name === query.name) &&
      (query.system === undefined || script.system === query.system) &&
      (query.search === undefined || matchesSearch(script, query.search)) &&
      (!query.tags?.length || query.tags.some((tag) => script.tags.includes(tag))) &&
      (query.category === undefined || script.category === query.category) &&
      (query.pricingModel === undefined || (script.pricing?.model ?? 'free') === query.pricingModel) &&
      (query.staffPick === undefined || script.staffPick === query.staffPick) &&
      (query.minRating === undefined || ratingOf(script) >= query.minRating) &&
      (!query.requiredIntegrations?.length || query.requiredIntegrations.every((name) => script.config.allowedResources.includes(name))),
  );
  const key = sortValue[query.sortBy ?? 'rating'];
  const direction = query.sortOrder === 'asc' ? 1 : -1;
  return filtered
    .map((script) => ({ script, value: key(script, now) }))
    .sort((a, b) => (a.value < b.value ? -direction : a.value > b.value ? direction : a.script.scriptId.localeCompare(b.script.scriptId)))
    .map(({ script }) => script);
}
