// A user's catalog kept between requests by this instance while the change stamps it was built under still stand: one
// read of those stamps per request replaces the rebuild (the reads of installations, scripts, flows and versions, the
// names, the schemas and their compiled validators), and a change made anywhere shows at the next request everywhere.
import { type CatalogEntry, type ScopedEntry, buildCatalog, visibleTo } from './catalog.js';
import type { CatalogSources } from './ports.js';

/** Users whose catalogs one instance keeps; the least recently used goes first. */
const maxUsers = 500;
/** Key scope sets kept per user (API keys and OAuth grants of different scopes see different tools). */
const maxViews = 16;
/** Builds in one request when each finds a script owner whose stamp was not read before it. */
const maxBuilds = 3;

/** What one key of the user sees: its tools in order, and by name. */
export interface CatalogView {
  entries: CatalogEntry[];
  byName: Map<string, CatalogEntry>;
}

interface Kept {
  /** The stamps read before the build, of every user whose changes the catalog shows. */
  stamps: Map<string, number>;
  entries: ScopedEntry[];
  views: Map<string, CatalogView>;
}

const standing = (kept: Kept, now: Map<string, number>) => [...kept.stamps].every(([userId, stamp]) => now.get(userId) === stamp);

export function createCatalogCache(sources: CatalogSources) {
  const kept = new Map<string, Kept>();

  function keep(userId: string, catalog: Kept) {
    kept.delete(userId);
    kept.set(userId, catalog);
    if (kept.size > maxUsers) kept.delete(kept.keys().next().value!);
  }

  /**
   * The stamps are read before the build, so a change during it moves a stamp past the one kept and the next request
   * builds again. An owner the build meets for the first time had no stamp read before it: read it and build once more.
   */
  async function current(userId: string): Promise<Kept> {
    const held = kept.get(userId);
    let owners = held ? [...held.stamps.keys()] : [userId];
    for (let build = 1; ; build++) {
      const stamps = await sources.stamps(owners);
      if (held && standing(held, stamps)) {
        keep(userId, held);
        return held;
      }
      const built = await buildCatalog(sources, userId);
      const fresh: Kept = { stamps, entries: built.entries, views: new Map() };
      const unread = built.owners.filter((owner) => !stamps.has(owner));
      if (unread.length === 0) {
        keep(userId, fresh);
        return fresh;
      }
      if (build === maxBuilds) return fresh;
      owners = [...owners, ...unread];
    }
  }

  return {
    /** The tools a key of `userId` holding `scopes` sees. */
    async view(userId: string, scopes: string[]): Promise<CatalogView> {
      const catalog = await current(userId);
      const key = [...scopes].sort().join(' ');
      const seen = catalog.views.get(key);
      if (seen) return seen;
      const entries = visibleTo(catalog.entries, scopes);
      const view = { entries, byName: new Map(entries.map((entry) => [entry.tool.name, entry])) };
      if (catalog.views.size >= maxViews) catalog.views.clear();
      catalog.views.set(key, view);
      return view;
    },
  };
}

export type CatalogCache = ReturnType<typeof createCatalogCache>;
