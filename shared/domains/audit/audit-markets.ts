import type { MarketEventRecord } from '../markets/market-event.model.js';
import type { MarketRecord } from '../markets/market.model.js';
import { bookState } from '../markets/sim-book.js';
import { resolvedPayoutMicro } from '../markets/market-log.js';
import { yesPayoutMicro } from '../markets/resolution.js';
import { fromMicro } from '../money.js';
import { PRICE_CEIL, PRICE_FLOOR, price } from '../markets/lmsr.js';
import { entryOf, Findings, groupBy, idRange, PRICE_TOLERANCE } from './audit-findings.js';
import type { AuditModels, Auditor, BatchAudit } from './audit-findings.js';
import { replayFills } from './audit-fills.js';
import { POOL_VENUE } from '../venues/venue-id.js';

/** One `$group` row: the events of one market of one kind (and side and action, for fills), in `seq` order. */
interface EventGroup {
  _id: {
    marketId: string;
    kind: MarketEventRecord['kind'];
    side?: 'yes' | 'no' | null;
    action?: string | null;
  };
  events: number;
  firstSeq: number;
  lastSeq: number;
  sharesMicro: number;
  amountMicro: number;
  firstPriceBefore: number | null;
  lastPriceAfter: number | null;
  lastQ0Yes?: number | null;
  lastOutcome: boolean | null;
  lastPayoutYesMicro?: number | null;
}

/** Net shares filled on each side, the net cash the book took (buys paid less sales received), and how many fills. */
interface Fills {
  yesMicro: number;
  noMicro: number;
  amountMicro: number;
  count: number;
}
const noFills = (): Fills => ({ yesMicro: 0, noMicro: 0, amountMicro: 0, count: 0 });

/** A market's book as its log computes it. */
interface MarketLog {
  events: number;
  lastSeq: number;
  fills: Fills;
  /** The last anchor event: the book's `q0Yes` since. */
  anchor: { seq: number; q0Yes: number | null } | null;
  /** The first fill (its price before is the price of the initial anchor, when no anchor event came before). */
  firstFill: { seq: number; priceBefore: number | null } | null;
  /** The last fill or anchor: its price after is the LMSR price of the book. */
  lastPrice: { seq: number; priceAfter: number | null } | null;
  resolve: { seq: number; outcome: boolean | null; payoutYesMicro: number | null } | null;
  close: { seq: number } | null;
}

const emptyMarketLog = (): MarketLog => ({
  events: 0,
  lastSeq: 0,
  fills: noFills(),
  anchor: null,
  firstFill: null,
  lastPrice: null,
  resolve: null,
  close: null,
});

/** Signed shares of a fill: a buy adds to the book, a sell takes back. */
const signed = (action: string | null | undefined, sharesMicro: number) =>
  action === 'sell' ? -sharesMicro : sharesMicro;

function addFill(
  fills: Fills,
  side: string | null | undefined,
  action: string | null | undefined,
  sharesMicro: number,
  amountMicro: number,
  count: number,
) {
  if (side === 'yes') fills.yesMicro += signed(action, sharesMicro);
  else fills.noMicro += signed(action, sharesMicro);
  fills.amountMicro += signed(action, amountMicro);
  fills.count += count;
}

type AuditedMarket = Pick<
  MarketRecord,
  '_id' | 'status' | 'outcome' | 'payoutYesMicro' | 'currentPrice' | 'book'
>;

/** One aggregation over the events of the batch's markets, in (marketId, seq) order (the log's index). */
async function readLogs(models: AuditModels, markets: AuditedMarket[]): Promise<Map<string, MarketLog>> {
  const groups = await models.MarketEvent.aggregate<EventGroup>([
    { $match: { marketId: idRange(markets) } },
    { $sort: { marketId: 1, seq: 1 } },
    {
      $group: {
        _id: { marketId: '$marketId', kind: '$kind', side: '$side', action: '$action' },
        events: { $sum: 1 },
        firstSeq: { $min: '$seq' },
        lastSeq: { $max: '$seq' },
        sharesMicro: { $sum: '$sharesMicro' },
        amountMicro: { $sum: '$amountMicro' },
        firstPriceBefore: { $first: '$priceBefore' },
        lastPriceAfter: { $last: '$priceAfter' },
        lastQ0Yes: { $last: '$q0Yes' },
        lastOutcome: { $last: '$outcome' },
        lastPayoutYesMicro: { $last: '$payoutYesMicro' },
      },
    },
  ]);
  const logs = new Map<string, MarketLog>();
  for (const g of groups) {
    const log = entryOf(logs, g._id.marketId, emptyMarketLog);
    log.events += g.events;
    log.lastSeq = Math.max(log.lastSeq, g.lastSeq);
    const { kind, side, action } = g._id;
    if (kind === 'fill') {
      addFill(log.fills, side, action, g.sharesMicro, g.amountMicro, g.events);
      if (!log.firstFill || g.firstSeq < log.firstFill.seq)
        log.firstFill = { seq: g.firstSeq, priceBefore: g.firstPriceBefore };
    }
    if (kind === 'anchor') log.anchor = { seq: g.lastSeq, q0Yes: g.lastQ0Yes ?? null };
    if ((kind === 'fill' || kind === 'anchor') && g.lastSeq > (log.lastPrice?.seq ?? 0))
      log.lastPrice = { seq: g.lastSeq, priceAfter: g.lastPriceAfter };
    if (kind === 'resolve')
      log.resolve = { seq: g.lastSeq, outcome: g.lastOutcome, payoutYesMicro: g.lastPayoutYesMicro ?? null };
    if (kind === 'close') log.close = { seq: g.firstSeq };
  }
  return logs;
}

/**
 * Sums the filled sim trades of the batch's markets, plus the fills of trades still in flight (logged
 * in the market's log, not yet marked filled on the trade record), so both sides describe one moment.
 * Read before the log: a trade marked filled has its fill logged already.
 */
async function readTradeFills(models: AuditModels, markets: AuditedMarket[]): Promise<Map<string, Fills>> {
  const groups = await models.Trade.aggregate<{
    _id: { marketId: string; status: string; side: string; action: string };
    trades: number;
    sharesMicro: number;
    amountMicro: number;
  }>([
    { $match: { marketId: idRange(markets), venue: POOL_VENUE } },
    {
      $group: {
        _id: { marketId: '$marketId', status: '$status', side: '$side', action: '$action' },
        trades: { $sum: 1 },
        sharesMicro: { $sum: '$fill.sharesMicro' },
        amountMicro: { $sum: '$fill.amountMicro' },
      },
    },
  ]);
  const out = new Map<string, Fills>();
  const of = (marketId: string) => entryOf(out, marketId, noFills);
  for (const g of groups)
    if (g._id.status === 'filled')
      addFill(of(g._id.marketId), g._id.side, g._id.action, g.sharesMicro, g.amountMicro, g.trades);
  if (!groups.some((g) => g._id.status === 'pending' || g._id.status === 'executing')) return out;
  const inFlight = await models.Trade.find(
    { marketId: idRange(markets), venue: POOL_VENUE, status: { $in: ['pending', 'executing'] } },
    { _id: 1 },
  ).lean();
  const logged = await models.MarketEvent.find({
    _id: { $in: inFlight.map((t) => t._id) },
    kind: 'fill',
  }).lean();
  for (const e of logged) addFill(of(e.marketId), e.side, e.action, e.sharesMicro, e.amountMicro, 1);
  return out;
}

/** The log as of the book's `version`: the events after it (normally none) taken back out. */
function asOfVersion(log: MarketLog, version: number, unapplied: MarketEventRecord[]): MarketLog {
  if (unapplied.length === 0) return log;
  const fills = { ...log.fills };
  for (const e of unapplied)
    if (e.kind === 'fill') addFill(fills, e.side, e.action, -e.sharesMicro, -e.amountMicro, -1);
  const before = <T extends { seq: number }>(x: T | null) => (x && x.seq <= version ? x : null);
  const after = (kind: MarketEventRecord['kind']) => unapplied.some((e) => e.kind === kind);
  // A last-of-kind that is not applied yet hides the one before it: not known here, compared once applied.
  return {
    ...log,
    lastSeq: version,
    fills,
    anchor: after('anchor') ? null : log.anchor,
    firstFill: before(log.firstFill),
    lastPrice: after('fill') || after('anchor') ? null : log.lastPrice,
    resolve: before(log.resolve),
    close: before(log.close),
  };
}

function auditMarket(
  findings: Findings,
  market: AuditedMarket,
  full: MarketLog,
  unapplied: MarketEventRecord[],
  trades: Fills = noFills(),
) {
  const id = market._id;
  const { book } = market;
  const differ = (
    field: string,
    expected: number | string | boolean | null,
    actual: typeof expected,
    tolerance = 0,
  ) => findings.compare(id, { kind: 'market', id, field, expected, actual }, tolerance);
  differ('events', full.lastSeq, full.events);
  if (book.version > full.lastSeq) differ('book.version', full.lastSeq, book.version);
  const log = asOfVersion(full, book.version, unapplied);
  differ('book.yesMicro', log.fills.yesMicro, book.yesMicro);
  differ('book.noMicro', log.fills.noMicro, book.noMicro);
  // The anchor moves only by logged anchor events; before the first, the first fill's price before
  // is the price of the initial anchor (with no fills yet).
  if (log.anchor) differ('book.q0Yes', log.anchor.q0Yes, book.q0Yes);
  else if (!full.anchor && log.firstFill?.priceBefore != null) {
    const logged = log.firstFill.priceBefore;
    const initial = price({ b: book.b, qYes: book.q0Yes, qNo: book.q0No }, 'yes');
    if (Math.abs(initial - logged) > PRICE_TOLERANCE) {
      const implied =
        logged > PRICE_FLOOR && logged < PRICE_CEIL
          ? book.q0No + book.b * Math.log(logged / (1 - logged))
          : null;
      differ('book.q0Yes', implied === null ? null : Math.round(implied * 1e6) / 1e6, book.q0Yes);
    }
  }
  const expectedStatus = log.resolve ? 'resolved' : log.close ? 'closed' : log.lastSeq > 0 ? 'active' : null;
  if (expectedStatus) differ('status', expectedStatus, market.status);
  if (log.resolve) {
    // What a YES share pays (1, 0, or 0.5 when void) is the resolved price.
    const payout = resolvedPayoutMicro(log.resolve);
    differ('outcome', log.resolve.outcome, market.outcome);
    differ('payoutYesMicro', payout, yesPayoutMicro(market));
    differ('currentPrice', fromMicro(payout), market.currentPrice);
  } else if (log.lastPrice?.priceAfter != null) {
    differ('currentPrice', log.lastPrice.priceAfter, market.currentPrice, PRICE_TOLERANCE);
    // With the fills right, the stored anchor and liquidity must give the price the log recorded.
    if (log.fills.yesMicro === book.yesMicro && log.fills.noMicro === book.noMicro)
      differ('book.price', log.lastPrice.priceAfter, price(bookState(market), 'yes'), PRICE_TOLERANCE);
  }
  // Cross-check with the trade records: one filled trade per fill, the same shares, and to the
  // micro-unit the same cash: what the agents paid and received is what the book took and paid.
  differ('trades.fills', full.fills.count, trades.count);
  differ('trades.yesMicro', full.fills.yesMicro, trades.yesMicro);
  differ('trades.noMicro', full.fills.noMicro, trades.noMicro);
  differ('trades.amountMicro', full.fills.amountMicro, trades.amountMicro);
}

/**
 * Audits a batch of markets: each book against the sum of its logged fills up to its `version`, the
 * anchor against the last anchor event, status and outcome against the resolve and close events, the
 * fills against the filled trades, and each fill's rounding against the LMSR at its state (the
 * house's dust, audit-fills.ts). Queries per batch: one aggregation of their trades, one of their
 * events, one read of their fills in log order, and (only when needed) the events of trades in
 * flight and those not applied yet.
 */
async function auditMarketBatch(models: AuditModels, markets: AuditedMarket[]): Promise<BatchAudit> {
  const findings = new Findings();
  const trades = await readTradeFills(models, markets);
  const logs = await readLogs(models, markets);
  const behindMarkets = markets.filter((m) => m.book.version < (logs.get(m._id)?.lastSeq ?? 0));
  const unapplied = behindMarkets.length
    ? await models.MarketEvent.find({
        $or: behindMarkets.map((m) => ({ marketId: m._id, seq: { $gt: m.book.version } })),
      }).lean<MarketEventRecord[]>()
    : [];
  const unappliedOf = groupBy(unapplied, (e) => e.marketId);
  for (const m of markets) {
    const log = logs.get(m._id) ?? emptyMarketLog();
    auditMarket(findings, m, log, unappliedOf.get(m._id) ?? [], trades.get(m._id));
  }
  const house = await replayFills(models, markets, (id) => logs.get(id)?.anchor != null, findings);
  return { positions: 0, behind: behindMarkets.length, findings, house };
}

const MARKET_PROJECTION = { status: 1, outcome: 1, payoutYesMicro: 1, currentPrice: 1, book: 1 };

export const marketAuditor: Auditor<AuditedMarket> = {
  read: (models, filter) =>
    models.Market.find(filter, MARKET_PROJECTION).sort({ _id: 1 }).lean<AuditedMarket[]>(),
  audit: auditMarketBatch,
};
