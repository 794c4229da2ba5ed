import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { isDuplicateKey } from '../refusal.js';
import { publishReactorEvents } from '../reactor/reactor-event-stream.js';
import type { VenueQuote } from '../venues/venue-adapter.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import { dropAgainst, favoritism, windowRange, type Drop, type PricePoint } from './drops.js';
import { estimateDepths, pastDrops } from './drop-history.js';
import type { ShockSignalRecord } from './shock-signal.model.js';
import { shockSignalView } from './shock-signal-view.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type DetectShocksDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock' | 'log'> & { models: Models };

/** What the detector reads of a market at a price refresh. */
export interface WatchedMarket {
  _id: string;
  /** Lower-cased at import: the venue's tags, then the venue's own name. */
  tags?: string[] | null;
}

/** Sports markets only: the shock ladder fades in-play shocks of matches. */
export const SPORTS_TAG = 'sports';
export const isSportsMarket = (m: WatchedMarket) => (m.tags ?? []).includes(SPORTS_TAG);

/** A book whose spread is at most this counts as deep (the bucket's third dimension). */
const DEEP_BOOK_SPREAD = 0.02;

const pricesKey = (prefix: string, marketId: string) => `${prefix}:shock:prices:${marketId}`;
const firedKey = (prefix: string, marketId: string) => `${prefix}:shock:fired:${marketId}`;

/**
 * The bucket of a shock, `league|favoritism|book|time|goal` as the skill reads it (it filters on
 * the second): the market's most specific tag (`epl` of sports, soccer, epl), the pre-shock price's favoritism band, the
 * venue book's depth by its spread (`deep`/`thin`), then the match minute and goal state, which no
 * venue quote carries (`unknown`).
 */
export function bucketKey(venueId: ExternalVenueId, m: WatchedMarket, drop: Drop, quote: VenueQuote): string {
  const league = (m.tags ?? []).filter((t) => t !== SPORTS_TAG && t !== venueId).at(-1) ?? SPORTS_TAG;
  const book = quote.spread !== null && quote.spread <= DEEP_BOOK_SPREAD ? 'deep' : 'thin';
  return [league, favoritism(drop.prePrice), book, 'unknown', 'unknown'].join('|');
}

/**
 * The recent prices of a market (this refresh's included), in Redis for one window: each refresh
 * adds its price and drops what fell out of the window.
 */
async function recentPrices(deps: DetectShocksDeps, marketId: string, point: PricePoint) {
  const key = pricesKey(deps.env.QUEUE_PREFIX, marketId);
  const windowMs = deps.env.SHOCK_LADDER_WINDOW_SECONDS * 1000;
  const results =
    (await deps.redis
      .pipeline()
      .zadd(key, point.atMs, `${point.atMs}:${point.yes}`)
      .zremrangebyscore(key, '-inf', `(${point.atMs - windowMs}`)
      .zrange(key, 0, -1)
      .pexpire(key, 2 * windowMs)
      .exec()) ?? [];
  const members = (results[2]?.[1] as string[] | undefined) ?? [];
  return members.map((m) => {
    const [at, yes] = m.split(':');
    return { atMs: Number(at), yes: Number(yes) };
  });
}

/**
 * Claims the drop as a shock, once across processes and retries: one shock per market per window.
 * The window then starts afresh at the shocked price, so prices that stay low make no second shock.
 */
async function claimShock(deps: DetectShocksDeps, marketId: string, point: PricePoint): Promise<boolean> {
  const prefix = deps.env.QUEUE_PREFIX;
  const windowMs = deps.env.SHOCK_LADDER_WINDOW_SECONDS * 1000;
  const claimed = await deps.redis.set(firedKey(prefix, marketId), String(point.atMs), 'PX', windowMs, 'NX');
  if (claimed !== 'OK') return false;
  await deps.redis.zremrangebyscore(pricesKey(prefix, marketId), '-inf', `(${point.atMs}`);
  return true;
}

/** The depth percentiles of the shock: the venue's past drops of its imported sports markets. */
async function depthsFor(deps: DetectShocksDeps, venueId: ExternalVenueId, drop: Drop) {
  const env = deps.env;
  const sports = await deps.models.Market.find(
    { importSource: venueId, tags: SPORTS_TAG },
    { _id: 1 },
  ).lean();
  // The price refresh goes on whatever the tapes do: unreadable history gives the default depths.
  const drops = await pastDrops({
    dataDir: env.DATA_DIR,
    source: venueId,
    marketIds: sports.map((m) => m._id),
    // Whole hours: the same question while the store stays the same is answered from memory.
    sinceMs:
      Math.floor(deps.clock().getTime() / 3600_000) * 3600_000 -
      env.SHOCK_LADDER_HISTORY_DAYS * 24 * 3600_000,
    rule: { dropCents: env.SHOCK_LADDER_DROP_CENTS, windowMs: env.SHOCK_LADDER_WINDOW_SECONDS * 1000 },
  }).catch((err: unknown) => {
    deps.log.warn({ err: (err as Error).message }, 'shock depths: the tapes could not be read');
    return [];
  });
  const [p50, p75, p90, p95] = env.SHOCK_LADDER_DEFAULT_DEPTHS_CENTS.split(',').map(Number) as [
    number,
    number,
    number,
    number,
  ];
  return estimateDepths(drops, drop.prePrice, env.SHOCK_LADDER_MIN_HISTORY, { p50, p75, p90, p95 });
}

/**
 * Queues one shock for every agent whose shock-ladder config is enabled (one signal each, its id the
 * shock's) and sends each on the Reactor event stream as `event: shock_ladder`.
 */
async function queueShock(
  deps: DetectShocksDeps,
  venueId: ExternalVenueId,
  m: WatchedMarket,
  quote: VenueQuote,
  drop: Drop,
): Promise<number> {
  const agents = await deps.models.ShockLadderConfig.find({ enabled: true }, { _id: 1 }).lean();
  if (!agents.length) return 0;
  const estimate = await depthsFor(deps, venueId, drop);
  const now = deps.clock();
  const shockId = `${m._id}:${drop.side}:${Math.floor(drop.atMs / 1000)}`;
  const round = (p: number) => Math.round(p * 10_000) / 10_000;
  const signals: ShockSignalRecord[] = agents.map((a) => ({
    _id: `${a._id}|${shockId}`,
    agentId: a._id,
    signalId: shockId,
    shockId,
    marketId: m._id,
    side: drop.side,
    prePrice: round(drop.prePrice),
    shockPrice: round(drop.price),
    bucketKey: bucketKey(venueId, m, drop, quote),
    depths: estimate.depths,
    depthSource: estimate.source,
    observedCount: estimate.count,
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.env.SHOCK_LADDER_SIGNAL_TTL_SECONDS * 1000),
    deletedAt: null,
  }));
  try {
    await deps.models.ShockSignal.collection.insertMany(signals as never[], { ordered: false });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // a retried refresh: those signals are there already
  }
  await publishReactorEvents(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    deps.env.REACTOR_STREAM_MAXLEN,
    signals.map((s) => ({ agentId: s.agentId, event: 'shock_ladder', data: shockSignalView(s) })),
  );
  deps.log.info(
    {
      marketId: m._id,
      shockId,
      side: drop.side,
      prePrice: drop.prePrice,
      price: drop.price,
      agents: agents.length,
    },
    'shock queued',
  );
  return signals.length;
}

/**
 * Part of the venue price refresh: each quoted sports market's price joins its recent prices, and a
 * drop of SHOCK_LADDER_DROP_CENTS within SHOCK_LADDER_WINDOW_SECONDS becomes a shock queued on the
 * Reactor feed of the agents that enabled the shock ladder. Answers the shocks found.
 */
export async function detectShocks<M extends WatchedMarket>(
  deps: DetectShocksDeps,
  venueId: ExternalVenueId,
  markets: M[],
  quotes: (m: M) => VenueQuote | undefined,
): Promise<number> {
  let shocks = 0;
  const rule = {
    dropCents: deps.env.SHOCK_LADDER_DROP_CENTS,
    windowMs: deps.env.SHOCK_LADDER_WINDOW_SECONDS * 1000,
  };
  for (const m of markets) {
    const quote = quotes(m);
    if (!quote || !isSportsMarket(m)) continue;
    const point = { atMs: deps.clock().getTime(), yes: quote.yesPrice };
    const prices = await recentPrices(deps, m._id, point);
    const range = windowRange(prices, point, rule.windowMs);
    const drop = range && dropAgainst(range.high, range.low, point, rule);
    if (!drop || !(await claimShock(deps, m._id, point))) continue;
    shocks++;
    await queueShock(deps, venueId, m, quote, drop);
  }
  return shocks;
}
