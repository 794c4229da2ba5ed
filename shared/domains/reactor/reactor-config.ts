import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { AppError, invalidField } from '../../infra/errors.js';
import { isDuplicateKey } from '../refusal.js';
import { MICRO, fromMicro, toMicro } from '../money.js';
import type { ReactorConfigRecord, ReactorWatchEntry } from './reactor-config.model.js';
import type { ReactorConfigUpdate, WatchEntryInput } from './reactor-config.schemas.js';
import { dailyCapUsed } from './daily-cap.js';
import { reactorConfigChanged } from './watcher-index.js';
import { DEFAULT_VENUE } from '../venues/venue-id.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ReactorConfigDeps = Pick<InfraDeps, 'env' | 'redis' | 'invalidation' | 'clock'> & {
  models: Models;
};

type ConfigFields = Omit<ReactorConfigRecord, '_id' | 'version' | 'createdAt' | 'updatedAt'>;

/**
 * An agent's config before its first change: nothing watched; once it names wallets, each fill of
 * 0 shares or more mirrors a tenth of the whale's shares, at most 100 shares and 100 units a day,
 * on sim, bought at the whale's price + 2 %.
 */
export const REACTOR_DEFAULTS: ConfigFields = {
  watchlist: [],
  watched: [],
  minSharesMicro: 0,
  maxSharesMicro: 100 * MICRO,
  mirrorFraction: 0.1,
  dailyCapMicro: 100 * MICRO,
  venue: DEFAULT_VENUE,
  enabled: true,
  priceBuffer: 0.02,
};

/** A concurrent change moved the config this many times in a row: the caller sends again. */
const UPDATE_ATTEMPTS = 5;

const newEntry = (wallet: string): ReactorWatchEntry => ({
  wallet,
  label: null,
  autoCopy: false,
  enabled: true,
  minSharesMicro: 0,
});

const entryOf = (e: WatchEntryInput): ReactorWatchEntry => ({
  wallet: e.wallet,
  label: e.label ?? null,
  autoCopy: e.auto_copy ?? false,
  enabled: e.enabled ?? true,
  minSharesMicro: toMicro(e.min_size ?? 0),
});

const sameSet = (a: string[], b: string[]) => {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((w) => sb.has(w));
};

/** The watchlist after an update (reactor-config.schemas.ts says how the two views land), or null when unchanged. */
function nextWatchlist(
  current: ReactorWatchEntry[],
  update: ReactorConfigUpdate,
): ReactorWatchEntry[] | null {
  if (update.watchlist) {
    const seen = new Set<string>();
    for (const e of update.watchlist) {
      if (seen.has(e.wallet))
        throw invalidField(
          'watchlist',
          `wallet ${e.wallet} is listed twice`,
          e.wallet,
          'List each wallet once (addresses are compared in lower case).',
        );
      seen.add(e.wallet);
    }
    const entries = update.watchlist.map(entryOf);
    const enabled = entries.filter((e) => e.enabled).map((e) => e.wallet);
    if (update.wallets && !sameSet(update.wallets, enabled))
      throw invalidField(
        'wallets',
        'wallets differ from the enabled wallets of watchlist',
        update.wallets,
        'Send one of wallets and watchlist (they are two views of one list), or make wallets exactly the enabled wallets of watchlist.',
      );
    return entries;
  }
  if (update.wallets) {
    const byWallet = new Map(current.map((e) => [e.wallet, e]));
    return [...new Set(update.wallets)].map((w) => ({ ...(byWallet.get(w) ?? newEntry(w)), enabled: true }));
  }
  return null;
}

function applyUpdate(current: ConfigFields, update: ReactorConfigUpdate): ConfigFields {
  const watchlist = nextWatchlist(current.watchlist, update) ?? current.watchlist;
  return {
    watchlist,
    watched: watchlist.filter((e) => e.enabled).map((e) => e.wallet),
    minSharesMicro: update.min_size === undefined ? current.minSharesMicro : toMicro(update.min_size),
    maxSharesMicro: update.max_size === undefined ? current.maxSharesMicro : toMicro(update.max_size),
    mirrorFraction: update.mirror_fraction ?? current.mirrorFraction,
    dailyCapMicro: update.daily_cap === undefined ? current.dailyCapMicro : toMicro(update.daily_cap),
    venue: update.venue ?? current.venue,
    enabled: update.enabled ?? current.enabled,
    priceBuffer: update.price_buffer ?? current.priceBuffer,
  };
}

async function configView(
  deps: Pick<ReactorConfigDeps, 'env' | 'redis' | 'clock'>,
  agentId: string,
  c: ConfigFields & { updatedAt?: Date | null },
) {
  const used = await dailyCapUsed(deps.redis, deps.env.QUEUE_PREFIX, agentId, deps.clock());
  return {
    agent_id: agentId,
    enabled: c.enabled,
    venue: c.venue,
    wallets: c.watchlist.filter((e) => e.enabled).map((e) => e.wallet),
    watchlist: c.watchlist.map((e) => ({
      wallet: e.wallet,
      label: e.label ?? null,
      auto_copy: e.autoCopy,
      enabled: e.enabled,
      min_size: fromMicro(e.minSharesMicro),
    })),
    min_size: fromMicro(c.minSharesMicro),
    max_size: fromMicro(c.maxSharesMicro),
    mirror_fraction: c.mirrorFraction,
    daily_cap: fromMicro(c.dailyCapMicro),
    daily_cap_used: fromMicro(used),
    price_buffer: c.priceBuffer,
    signal_ttl_seconds: deps.env.REACTOR_SIGNAL_TTL_SECONDS,
    updated_at: c.updatedAt?.toISOString() ?? null,
  };
}

/** `GET /api/sdk/reactor/config`: the agent's config, the defaults until its first change. */
export async function getReactorConfig(deps: ReactorConfigDeps, agentId: string) {
  const stored = await deps.models.ReactorConfig.findById(agentId).lean();
  return configView(deps, agentId, stored ?? REACTOR_DEFAULTS);
}

/**
 * `PATCH /api/sdk/reactor/config`: applies the fields sent to the stored config (the defaults when
 * none), guarded by its version so that two changes at once both land, then tells every process's
 * watcher index. Answers the whole config.
 */
export async function patchReactorConfig(
  deps: ReactorConfigDeps,
  agentId: string,
  update: ReactorConfigUpdate,
) {
  const { ReactorConfig } = deps.models;
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const current = await ReactorConfig.findById(agentId).lean();
    const next = applyUpdate(current ?? REACTOR_DEFAULTS, update);
    if (!current) {
      try {
        await ReactorConfig.create({ _id: agentId, ...next, version: 1 });
      } catch (err) {
        if (isDuplicateKey(err)) continue;
        throw err;
      }
    } else {
      const moved = await ReactorConfig.updateOne(
        { _id: agentId, version: current.version },
        { $set: next, $inc: { version: 1 } },
      );
      if (!moved.matchedCount) continue;
    }
    await reactorConfigChanged(deps, agentId);
    return getReactorConfig(deps, agentId);
  }
  throw new AppError(
    409,
    'config_changed',
    'The Reactor config changed while this change was applied',
    'Send the change again.',
    { retryable: true },
  );
}
