import type { z } from 'zod';
import { isRedeemable } from '../positions/redeemable.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import {
  positionStatus,
  positionView,
  venueMarkMicro,
  type PositionView,
} from '../positions/position-views.js';
import {
  externalVenueIds,
  isPoolVenue,
  listedVenues,
  POOL_VENUE,
  venueIds,
  type ExternalVenueId,
  type VenueId,
} from '../venues/venue-id.js';
import { realMoneyVenueIds, venueMoney } from '../venues/venue-conventions.js';
import type { PositionRecord } from '../positions/position.model.js';
import { positionsWithMarkets } from '../positions/with-markets.js';
import { FILLED, FINAL_TRADE_STATUSES, type TradeRecord } from './trade.model.js';
import { bucketCash, type WalletCash } from './wallet-cash.js';
import {
  venueFilter,
  type PortfolioQuerySchema,
  type PositionsQuerySchema,
  type TradesQuerySchema,
} from './reads.schemas.js';

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

interface PnlSummary {
  realized: number;
  unrealized: number;
  total: number;
}

/** GET /api/sdk/positions (client-contract §6.1). */
export async function listPositions(
  models: Models,
  agent: AgentRecord,
  q: z.output<typeof PositionsQuerySchema>,
) {
  const venue = venueFilter(q.venue);
  const rows = await positionsWithMarkets(models, agent._id, venue);
  const views: PositionView[] = [];
  for (const { p, m } of rows) {
    const status = positionStatus(p, m);
    if (q.status !== 'all' && status !== q.status) continue;
    if (q.source && !p.sources.some((s) => s.toLowerCase().includes(q.source!.toLowerCase()))) continue;
    views.push(positionView(p, m, agent.balanceMicro));
  }
  views.sort((a, b) => (b.last_trade_at ?? '').localeCompare(a.last_trade_at ?? ''));
  const pnlOf = (venue: VenueId) =>
    round6(views.filter((v) => v.venue === venue).reduce((s, v) => s + v.pnl, 0));
  const summary = (venue: VenueId): PnlSummary => {
    const vs = views.filter((v) => v.venue === venue);
    const realized = round6(vs.reduce((s, v) => s + v.realized_pnl, 0));
    const unrealized = round6(vs.reduce((s, v) => s + v.unrealized_pnl, 0));
    return { realized, unrealized, total: round6(realized + unrealized) };
  };
  // One `<venue>_pnl` and one summary per venue, in the venues' order (the clients read them by name).
  const venues = listedVenues(venueIds(), (v) => views.some((view) => view.venue === v));
  const summaries = Object.fromEntries(venues.map((v) => [v, summary(v)])) as Record<VenueId, PnlSummary>;
  // The totals are in one currency, over the venues the portfolio's `pnl_total` counts (moneyScope).
  const money = moneyScope(venue, rows);
  const counted = views.filter((v) => money.venues.includes(v.venue as VenueId));
  const inScope = venues.filter((v) => money.venues.includes(v));
  const combined = (k: keyof PnlSummary) => round6(inScope.reduce((s, v) => s + summaries[v]![k], 0));
  return {
    agent_id: agent._id,
    agent_name: agent.name,
    positions: views,
    total_value: round6(counted.reduce((s, v) => s + v.current_value, 0)),
    total_pnl: round6(counted.reduce((s, v) => s + v.pnl, 0)),
    pnl_currency: money.currency,
    ...(Object.fromEntries(venues.map((v) => [`${v}_pnl`, pnlOf(v)])) as Record<`${VenueId}_pnl`, number>),
    pnl_summary: {
      ...summaries,
      combined: {
        realized: combined('realized'),
        unrealized: combined('unrealized'),
        total: combined('total'),
      },
    },
    sim_balance: fromMicro(agent.balanceMicro),
  };
}

function tradeRow(t: TradeRecord, m: Pick<MarketRecord, 'question' | 'importSource'> | undefined) {
  const failed = t.status === 'rejected' || t.status === 'failed';
  const shares = t.fill ? t.fill.sharesMicro : t.action === 'sell' ? t.sharesMicro : 0;
  const row: Record<string, unknown> = {
    trade_id: t._id,
    id: t._id,
    market_id: t.marketId,
    market_question: m?.question ?? null,
    venue: t.venue,
    market_source: isPoolVenue(t.venue) ? null : t.venue,
    action: t.action,
    side: t.side,
    shares: fromMicro(shares),
    cost: t.fill ? fromMicro(t.fill.amountMicro) : 0,
    amount: fromMicro(t.amountMicro),
    price_before: t.fill?.priceBefore ?? null,
    price_after: t.fill?.priceAfter ?? null,
    status: t.status === 'pending' || t.status === 'executing' ? 'submitted' : t.status,
    order_type: t.orderType,
    source: t.source,
    skill_slug: t.skillSlug,
    reasoning: t.reasoning,
    created_at: t.createdAt ? t.createdAt.toISOString() : null,
    executed_at: t.finishedAt ? t.finishedAt.toISOString() : null,
  };
  // A venue match settling on chain (venue-settlement.ts): `pending` until the chain's final word.
  if (t.venueOrder?.settlement) row.settlement = t.venueOrder.settlement;
  if (failed) {
    row.failure_category = t.failureCategory;
    row.failure_reason = t.failureReason;
    row.error_code = t.errorCode;
  } else if (t.failureReason) row.failure_reason = t.failureReason; // part of its order failed on chain
  return row;
}

/** GET /api/sdk/trades (client-contract §6.3): newest first; failed rows only with include_failed. */
export async function listTrades(models: Models, agent: AgentRecord, q: z.output<typeof TradesQuerySchema>) {
  const filter: Record<string, unknown> = { agentId: agent._id };
  const venue = venueFilter(q.venue);
  if (venue) filter.venue = venue;
  if (q.market_id) filter.marketId = q.market_id;
  if (q.since || q.until)
    filter.createdAt = {
      ...(q.since && { $gte: new Date(q.since) }),
      ...(q.until && { $lte: new Date(q.until) }),
    };
  filter.status = q.include_failed
    ? { $in: ['pending', 'executing', ...FINAL_TRADE_STATUSES] }
    : // An open order (resting, delayed) is a trade in progress; a cancelled one shows with the failed.
      { $in: ['pending', 'executing', 'open', 'filled'] };
  const [total, trades] = await Promise.all([
    // The agent's matching ids, counted here: countDocuments is an aggregation, which the
    // development database answers by scanning every agent's trades.
    models.Trade.find(filter, { _id: 1 })
      .lean()
      .then((ids) => ids.length),
    models.Trade.find(filter).sort({ createdAt: -1, _id: -1 }).skip(q.offset).limit(q.limit).lean(),
  ]);
  const markets = await models.Market.find(
    { _id: { $in: [...new Set(trades.map((t) => t.marketId))] } },
    { question: 1, importSource: 1 },
  ).lean();
  const byId = new Map(markets.map((m) => [m._id, m]));
  return {
    trades: trades.map((t) => tradeRow(t, byId.get(t.marketId))),
    total_count: total,
    limit: q.limit,
    offset: q.offset,
    agent_id: agent._id,
  };
}

/**
 * Each venue's P&L of the agent, as the portfolio's venue buckets count it (venuePnlMicro over the
 * venue's positions): `agents/me?include=pnl`.
 */
export async function venuePnlsMicro(models: Models, agentId: string): Promise<Map<VenueId, number>> {
  const rows = await positionsWithMarkets(models, agentId);
  return new Map(venueIds().map((v) => [v, venuePnlMicro(rows.filter(({ p }) => p.venue === v))]));
}

/** Positions' P&L: realised (sells, settlements) plus open shares marked at the venue's price less their cost. */
function venuePnlMicro(rows: { p: PositionRecord; m: MarketRecord }[]): number {
  return rows.reduce(
    (s, { p, m }) =>
      s +
      p.realizedPnlMicro +
      (p.status === 'settled' ? 0 : venueMarkMicro(p, m) - p.costYesMicro - p.costNoMicro),
    0,
  );
}

/**
 * The venues whose money the flat P&L fields count (the portfolio's `pnl_total`, `pnl_24h`, `by_source`;
 * the positions list's `total_pnl`, `total_value` and `pnl_summary.combined`),
 * in one currency: the asked venue's; with all venues asked, the real-money venues' when the agent
 * holds or held a position on one (pUSD and USDC are both dollars: counted 1:1, labelled USDC as the
 * positions are), else our pool's ($SIM). $SIM and dollars are never added together; each venue bucket keeps its own `pnl`.
 */
function moneyScope(
  venue: VenueId | undefined,
  rows: { p: PositionRecord }[],
): { venues: VenueId[]; currency: string } {
  if (venue) return { venues: [venue], currency: venueMoney(venue).unit };
  const real = realMoneyVenueIds().filter((v) => rows.some(({ p }) => p.venue === v));
  return real.length
    ? { venues: real, currency: venueMoney(real[0]!).unit }
    : { venues: [POOL_VENUE], currency: venueMoney(POOL_VENUE).unit };
}

interface TagTotals {
  positions: number;
  exposure: number;
  realized_pnl: number;
  unrealized_pnl: number;
  trade_count: number;
}

/**
 * Totals per tag of the positions (a source, a skill): the open positions, their exposure and
 * unrealised P&L, the realised P&L of every position the tag traded (closed and settled ones
 * included), and `trades` (filled trades per tag). A position traded under several tags counts
 * whole under each of them.
 */
export function totalsByTag(
  rows: { p: PositionRecord; m: MarketRecord }[],
  tagsOf: (p: PositionRecord) => readonly string[],
  trades: Map<string, number>,
): Record<string, TagTotals> {
  const micro = new Map<
    string,
    { positions: number; exposure: number; realized: number; unrealized: number }
  >();
  const totalsOf = (tag: string) => {
    let t = micro.get(tag);
    if (!t) micro.set(tag, (t = { positions: 0, exposure: 0, realized: 0, unrealized: 0 }));
    return t;
  };
  for (const { p, m } of rows) {
    const open =
      p.status !== 'settled' &&
      p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro > 0;
    for (const tag of tagsOf(p)) {
      const t = totalsOf(tag);
      t.realized += p.realizedPnlMicro;
      if (!open) continue;
      const mark = venueMarkMicro(p, m);
      t.positions += 1;
      t.exposure += mark;
      t.unrealized += mark - p.costYesMicro - p.costNoMicro;
    }
  }
  for (const tag of trades.keys()) totalsOf(tag);
  return Object.fromEntries(
    [...micro].map(([tag, t]) => [
      tag,
      {
        positions: t.positions,
        exposure: fromMicro(t.exposure),
        realized_pnl: fromMicro(t.realized),
        unrealized_pnl: fromMicro(t.unrealized),
        trade_count: trades.get(tag) ?? 0,
      },
    ]),
  );
}

/** `by_source` (client-contract §6.2): totalsByTag per source tag, `manual` for untagged. */
function bySource(
  rows: { p: PositionRecord; m: MarketRecord }[],
  tradeCounts: { _id: string | null; n: number }[],
): Record<string, TagTotals> {
  const trades = new Map<string, number>();
  for (const c of tradeCounts) trades.set(c._id ?? 'manual', (trades.get(c._id ?? 'manual') ?? 0) + c.n);
  return totalsByTag(rows, (p) => (p.sources.length ? p.sources : ['manual']), trades);
}

/**
 * A venue's bucket of the portfolio (client-contract §6.2) from its positions, marked at the
 * venue's price. `balanceMicro`: the agent's $SIM on sim; on real venues the cash is in the owner's
 * own wallet on-chain, which bucketCash (wallet-cash.ts) lays over the bucket.
 */
export function bucket(rows: { p: PositionRecord; m: MarketRecord }[], balanceMicro: number) {
  const open = rows.filter(({ p }) => p.status !== 'settled');
  const exposure = open.reduce((s, { p, m }) => s + venueMarkMicro(p, m), 0);
  return {
    balance: fromMicro(balanceMicro),
    pnl: fromMicro(venuePnlMicro(rows)),
    positions_count: open.filter(
      ({ p }) => p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro > 0,
    ).length,
    total_exposure: fromMicro(exposure),
  };
}

/** A real venue's bucket: its positions and its wallet's cash. */
export type VenueBucket = ReturnType<typeof bucket> & ReturnType<typeof bucketCash>;

/**
 * The flat `balance_usdc`: the asked venue's wallet cash, else the sum over the owner's venue wallets
 * read (0 without any); null when none could be read (unknown, which clients treat as unavailable).
 */
function balanceUsdc(cash: Map<VenueId, WalletCash>, venue: VenueId | undefined): number | null {
  const wallets = [...cash.values()].filter((c) => venue === undefined || c.venue === venue);
  const known = wallets.filter((c) => c.balance !== null);
  if (wallets.length && !known.length) return null;
  return round6(known.reduce((s, c) => s + c.balance!, 0));
}

/**
 * GET /api/sdk/portfolio (client-contract §6.2): numbers and objects, never null where clients
 * dereference. `cash`: the owner's venue wallets' cash (wallet-cash.ts).
 */
export async function portfolio(
  models: Models,
  agent: AgentRecord,
  q: z.output<typeof PortfolioQuerySchema>,
  now: Date,
  cash: Map<VenueId, WalletCash>,
) {
  const venue = venueFilter(q.venue);
  const rows = await positionsWithMarkets(models, agent._id, venue);
  const simRows = rows.filter(({ p }) => isPoolVenue(p.venue));
  const sim = bucket(simRows, agent.balanceMicro);
  const open = rows.filter(
    ({ p }) =>
      p.status !== 'settled' &&
      p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro > 0,
  );
  const exposures = open.map(({ p, m }) => venueMarkMicro(p, m)).sort((a, b) => b - a);
  const totalExposure = exposures.reduce((s, x) => s + x, 0);
  // Shares of the exposure as fractions (0.84 for 84 %): the skills' status scripts compare them with 0.5.
  const share = (n: number) => (totalExposure > 0 ? Math.round((n / totalExposure) * 1e4) / 1e4 : 0);
  const money = moneyScope(venue, rows);
  const inScope = rows.filter(({ p }) => money.venues.includes(p.venue as VenueId));
  const since = new Date(now.getTime() - 24 * 3600_000);
  // Both are finds by the agent (its trades' and ledger's indexes) with a projection, summed here: an
  // aggregation's $match is a full collection scan on the development database, whatever the indexes.
  const [filled, booked] = await Promise.all([
    models.Trade.find(
      { agentId: agent._id, venue: { $in: money.venues }, ...FILLED },
      { _id: 0, source: 1 },
    ).lean(),
    // Realised in the last 24 hours: what the ledger booked to the positions of those venues.
    models.LedgerEntry.find(
      { agentId: agent._id, at: { $gte: since }, 'position.venue': { $in: money.venues } },
      { _id: 0, 'position.realizedPnlMicro': 1 },
    ).lean<{ position?: { realizedPnlMicro?: number } | null }[]>(),
  ]);
  const counts = new Map<string | null, number>();
  for (const t of filled) counts.set(t.source ?? null, (counts.get(t.source ?? null) ?? 0) + 1);
  const tradeCounts = [...counts].map(([_id, n]) => ({ _id, n }));
  const pnl24h = [{ total: booked.reduce((s, e) => s + (e.position?.realizedPnlMicro ?? 0), 0) }];
  return {
    agent_id: agent._id,
    balance_usdc: balanceUsdc(cash, venue),
    available_balance: fromMicro(agent.balanceMicro),
    sim_balance: fromMicro(agent.balanceMicro),
    sim_pnl: sim.pnl,
    total_exposure: fromMicro(totalExposure),
    positions_count: open.length,
    redeemable_count: rows.filter(({ p, m }) => isRedeemable(p, m)).length,
    pnl_24h: fromMicro(pnl24h[0]?.total ?? 0),
    pnl_total: fromMicro(venuePnlMicro(inScope)),
    pnl_currency: money.currency,
    concentration: {
      top_market_pct: share(exposures[0] ?? 0),
      top_3_markets_pct: share(exposures.slice(0, 3).reduce((s, x) => s + x, 0)),
    },
    by_source: bySource(inScope, tradeCounts),
    warnings: [
      ...(exposures.length && share(exposures[0]!) > 0.5
        ? ['More than half of your exposure is in one market.']
        : []),
      ...[...cash.values()].flatMap((c) => (c.warning ? [c.warning] : [])),
    ],
    sim: venue === undefined || isPoolVenue(venue) ? sim : null,
    // Real positions at the venue's price (imported markets follow it), and the cash in the owner's wallet there.
    ...(Object.fromEntries(
      listedVenues(externalVenueIds(), (v) => cash.has(v) || rows.some(({ p }) => p.venue === v)).map((v) => [
        v,
        venue === undefined || venue === v
          ? {
              ...bucket(
                rows.filter(({ p }) => p.venue === v),
                0,
              ),
              ...bucketCash(cash.get(v)),
            }
          : null,
      ]),
    ) as Record<ExternalVenueId, VenueBucket | null>),
    total: { positions_count: open.length, total_exposure: fromMicro(totalExposure) },
    combos: [],
  };
}
