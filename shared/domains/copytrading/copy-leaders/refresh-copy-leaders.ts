import type { InfraDeps } from '../../../infra/infra-deps.js';
import { chunks } from '../../../util/chunks.js';
import type { Models } from '../../models.js';
import type { MarketRecord } from '../../markets/market.model.js';
import type { VenueFill } from '../../venues/venue-fill.js';
import type { ExternalVenueId } from '../../venues/venue-id.js';
import { backtestCopies, type CopyFill, type CopyMarket } from './copy-backtest.js';
import {
  LATEST_COPY_LEADERS,
  type CategoryLeaders,
  type CopyLeadersModel,
  type StoredLeader,
} from './copy-leaders.model.js';

/** The window of fills a run copies: the last week. */
export const COPY_LEADERS_WINDOW_DAYS = 7;
/** At most this many fill legs are read per run, the newest first (the run's memory and time bound). */
export const MAX_FILLS_READ = 200_000;
/** A wallet needs this many trades in the window to lead: one lucky trade is no record. */
export const MIN_LEADER_TRADES = 3;
/** Leaders kept per category. */
export const LEADERS_KEPT = 10;
/** The category of every market. */
export const ALL_CATEGORIES = 'all';

export type RefreshCopyLeadersDeps = Pick<InfraDeps, 'clock' | 'log'> & {
  models: Pick<Models, 'VenueFill' | 'Market'> & { CopyLeaders: CopyLeadersModel };
};

type FillRow = Pick<VenueFill, 'venue' | 'wallet' | 'at' | 'action' | 'outcome' | 'price' | 'shares'> & {
  market: { externalId: string } | null;
  withdrawnAt: Date | null;
};
type MarketRow = Pick<MarketRecord, '_id' | 'category' | 'feeRateBps' | 'status' | 'outcome'> & {
  payoutYesMicro?: number | null;
  venueRef: { venue: string; externalId: string };
};

const venueKey = (venue: string, externalId: string) => `${venue}|${externalId}`;

/** What a YES share paid, once the market resolved (older records say it by `outcome` alone). */
function payoutYes(m: MarketRow): number | null {
  if (m.status !== 'resolved') return null;
  if (typeof m.payoutYesMicro === 'number') return m.payoutYesMicro / 1e6;
  return m.outcome === null || m.outcome === undefined ? null : m.outcome ? 1 : 0;
}

/** Our markets of the fills' venue markets (fills of markets never imported here are not copied). */
async function marketsOf(deps: RefreshCopyLeadersDeps, fills: readonly FillRow[]) {
  const byVenue = new Map<ExternalVenueId, Set<string>>();
  for (const f of fills) {
    if (!f.market) continue;
    const ids = byVenue.get(f.venue) ?? new Set<string>();
    byVenue.set(f.venue, ids.add(f.market.externalId));
  }
  const found = new Map<string, MarketRow>();
  for (const [venue, ids] of byVenue)
    for (const part of chunks([...ids], 500)) {
      const rows = (await deps.models.Market.find(
        { 'venueRef.venue': venue, 'venueRef.externalId': { $in: part } },
        { category: 1, feeRateBps: 1, status: 1, outcome: 1, payoutYesMicro: 1, venueRef: 1 },
      ).lean()) as MarketRow[];
      for (const m of rows) found.set(venueKey(venue, m.venueRef.externalId), m);
    }
  return found;
}

/** The best `LEADERS_KEPT` of a backtest: positive copy P&L, at least MIN_LEADER_TRADES trades. */
function leadersOf(fills: CopyFill[], markets: Map<string, CopyMarket>, category: string): StoredLeader[] {
  const inScope = category === ALL_CATEGORIES ? () => true : (m: CopyMarket) => m.category === category;
  return backtestCopies(fills, markets, inScope)
    .filter((r) => r.tradeCount >= MIN_LEADER_TRADES && r.pnlUsd > 0)
    .sort((a, b) => b.pnlUsd - a.pnlUsd || a.wallet.localeCompare(b.wallet))
    .slice(0, LEADERS_KEPT)
    .map((r) => ({
      wallet: r.wallet,
      pnlUsd: Math.round(r.pnlUsd * 100) / 100,
      slippageCostRatePct: Math.round(r.slippageCostRatePct * 100) / 100,
      tradeCount: r.tradeCount,
    }));
}

/**
 * The daily copy-leaders run: reads the window's settled fills (`venue_fills`, the fill feed's
 * record of who traded: both legs of every match, maker and taker, by wallet, with reorgs taken
 * back), keeps those of markets imported here (which give the category, the fee and the
 * resolution), backtests copying each wallet (copy-backtest.ts) for every market and per category,
 * and replaces the stored leaders. Rerunning it is harmless: the result is replaced whole.
 */
export async function refreshCopyLeaders(deps: RefreshCopyLeadersDeps) {
  const windowEnd = deps.clock();
  const windowStart = new Date(windowEnd.getTime() - COPY_LEADERS_WINDOW_DAYS * 86_400_000);
  const read = (await deps.models.VenueFill.find(
    { at: { $gte: windowStart, $lt: windowEnd } },
    {
      venue: 1,
      wallet: 1,
      at: 1,
      action: 1,
      outcome: 1,
      price: 1,
      shares: 1,
      'market.externalId': 1,
      withdrawnAt: 1,
    },
  )
    .sort({ at: -1 })
    .limit(MAX_FILLS_READ + 1)
    .lean()) as unknown as FillRow[];
  const truncated = read.length > MAX_FILLS_READ;
  const settled = read.slice(0, MAX_FILLS_READ).filter((f) => !f.withdrawnAt && f.market);

  const known = await marketsOf(deps, settled);
  const markets = new Map<string, CopyMarket>();
  const fills: CopyFill[] = [];
  for (const f of settled) {
    const m = known.get(venueKey(f.venue, f.market!.externalId));
    if (!m) continue;
    markets.set(m._id, {
      category: m.category ? m.category.toLowerCase() : null,
      feeRateBps: m.feeRateBps ?? 0,
      payoutYes: payoutYes(m),
    });
    fills.push({
      wallet: f.wallet,
      marketId: m._id,
      at: f.at,
      action: f.action,
      outcome: f.outcome,
      price: f.price,
      shares: f.shares,
    });
  }

  const categoryNames = [
    ...new Set([...markets.values()].map((m) => m.category).filter((c): c is string => !!c)),
  ].sort();
  const categories: CategoryLeaders[] = [ALL_CATEGORIES, ...categoryNames].map((category) => ({
    category,
    leaders: leadersOf(fills, markets, category),
  }));
  await deps.models.CopyLeaders.replaceOne(
    { _id: LATEST_COPY_LEADERS },
    {
      _id: LATEST_COPY_LEADERS,
      refreshedAt: deps.clock(),
      windowStart,
      windowEnd,
      fillsRead: read.length - (truncated ? 1 : 0),
      truncated,
      categories,
    },
    { upsert: true },
  );
  deps.log.info(
    { fills: fills.length, markets: markets.size, categories: categories.length, truncated },
    'copy leaders refreshed',
  );
  return { fills: fills.length, categories: categories.length, truncated };
}
