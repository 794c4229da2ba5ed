import type { InfraDeps } from '../../infra/infra-deps.js';
import type { LocalCache } from '../../infra/local-cache.js';
import type { Models } from '../models.js';
import type { MirrorRule } from './mirror-amount.js';

/** One agent watching one wallet: what turning that wallet's fill into the agent's signal needs. */
export interface Watcher extends MirrorRule {
  agentId: string;
  /** The agent's config venue: the signal's. */
  venue: string;
  label: string | null;
  minSharesMicro: number;
  entryMinSharesMicro: number;
  dailyCapMicro: number;
}

/** Watched wallet (lower case) → the agents watching it. */
export type WatcherIndex = ReadonlyMap<string, readonly Watcher[]>;

/**
 * The process's watcher index, one entry (the whole index): every enabled config's enabled
 * wallets. A config change drops it on every process over the invalidation channel (`reactor`);
 * LOCAL_CACHE_SECONDS bounds what a lost message leaves behind.
 */
export interface ReactorWatcherCache {
  reactorWatchers: LocalCache<WatcherIndex>;
}

export type WatcherIndexDeps = { models: Models; caches: ReactorWatcherCache };

const INDEX_KEY = 'all';

async function loadIndex(models: Models): Promise<WatcherIndex> {
  const configs = await models.ReactorConfig.find(
    { enabled: true },
    {
      watchlist: 1,
      venue: 1,
      minSharesMicro: 1,
      maxSharesMicro: 1,
      mirrorFraction: 1,
      dailyCapMicro: 1,
    },
  ).lean();
  const index = new Map<string, Watcher[]>();
  for (const c of configs) {
    for (const entry of c.watchlist) {
      if (!entry.enabled) continue;
      const watchers = index.get(entry.wallet) ?? [];
      watchers.push({
        agentId: c._id,
        venue: c.venue,
        label: entry.label ?? null,
        minSharesMicro: c.minSharesMicro,
        entryMinSharesMicro: entry.minSharesMicro,
        mirrorFraction: c.mirrorFraction,
        maxSharesMicro: c.maxSharesMicro,
        dailyCapMicro: c.dailyCapMicro,
      });
      index.set(entry.wallet, watchers);
    }
  }
  return index;
}

/** The agents watching each wallet, from the process's cache (loaded once per LOCAL_CACHE_SECONDS at most). */
export async function watcherIndex(deps: WatcherIndexDeps): Promise<WatcherIndex> {
  return deps.caches.reactorWatchers.getOrLoad(INDEX_KEY, () => loadIndex(deps.models));
}

/** Tells every process that an agent's Reactor config changed: their watcher index is rebuilt. */
export async function reactorConfigChanged(deps: Pick<InfraDeps, 'invalidation'>, agentId: string) {
  await deps.invalidation.publish('reactor', agentId);
}
