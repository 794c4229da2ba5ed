import { notFound } from '../../infra/errors.js';
import { LocalCache } from '../../infra/local-cache.js';
import type { Models } from '../models.js';
import { price, stateAt } from './lmsr.js';
import { isServiceMarketId } from '../venues/external-ids.js';

const px = (p: number) => Math.round(p * 1e6) / 1e6;

/**
 * Past prices asked for "an hour ago" / "a day ago" change once a minute at that resolution, and a
 * hot market's context is read hundreds of times a second: one computation per market and minute
 * per process, instead of one log scan per request.
 */
const pastPrices = new LocalCache<number>(10_000, () => 60_000);
const MINUTE_MS = 60_000;

/** The YES price at the start of the minute of `at` (see pastPrices), from a process cache. */
export async function priceAtMinute(
  models: Models,
  market: Parameters<typeof priceAt>[1] & { _id: string },
  at: Date,
): Promise<number> {
  const minute = new Date(Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS);
  return pastPrices.getOrLoad(`${market._id}:${minute.getTime()}`, () => priceAt(models, market, minute));
}

/** The YES price the book opened at (before any event). */
export function openingPrice(book: { b: number; q0Yes: number; q0No: number }): number {
  return price({ ...stateAt(book.b, 0.5), qYes: book.q0Yes, qNo: book.q0No }, 'yes');
}

/** The YES price at instant `at`: the price after the last event at or before it. */
export async function priceAt(
  models: Models,
  market: { _id: string; book: { b: number; q0Yes: number; q0No: number; version?: number } },
  at: Date,
): Promise<number> {
  const last = await models.MarketEvent.findOne({ marketId: market._id, at: { $lte: at } }, { priceAfter: 1 })
    .sort({ seq: -1 })
    .lean();
  if (last) return px(last.priceAfter ?? openingPrice(market.book));
  if (market.book.version === 0) return px(openingPrice(market.book));
  // Before its first event the book was at that event's starting price; the anchor of an imported
  // market has moved since, so the book's anchor alone no longer tells the opening price.
  const first = await models.MarketEvent.findOne({ marketId: market._id }, { priceBefore: 1 })
    .sort({ seq: 1 })
    .lean();
  return px(first?.priceBefore ?? openingPrice(market.book));
}

/**
 * Price history from the market's event log and the scheduled snapshots: the book's price only moves
 * on an event (a fill, the resolution), so the price at any instant is the latest known price before it. Points are
 * sampled every `intervalMinutes` over the last `hours` (downsampled: one point per interval, the
 * price at its end), oldest first.
 */
export async function priceHistory(
  models: Models,
  marketId: string,
  hours: number,
  intervalMinutes: number,
  now: Date,
) {
  const market = isServiceMarketId(marketId)
    ? await models.Market.findById(marketId, { book: 1, status: 1, outcome: 1 }).lean()
    : null;
  if (!market) throw notFound('Market', 'Use the service market_id (a UUID) from GET /api/sdk/markets.');
  const stepMs = intervalMinutes * 60_000;
  // Align the grid to the interval so that repeated calls return the same timestamps.
  const end = Math.floor(now.getTime() / stepMs) * stepMs;
  const start = end - hours * 3600_000;
  const from = new Date(start);
  const to = new Date(end);
  const [eventBefore, events, pointBefore, snapshots] = await Promise.all([
    models.MarketEvent.findOne({ marketId, at: { $lte: from } }, { priceAfter: 1, at: 1 })
      .sort({ seq: -1 })
      .lean(),
    models.MarketEvent.find({ marketId, at: { $gt: from, $lte: to } }, { priceAfter: 1, at: 1 })
      .sort({ seq: 1 })
      .lean(),
    models.PricePoint.findOne({ marketId, at: { $lte: from } })
      .sort({ at: -1 })
      .lean(),
    models.PricePoint.find({ marketId, at: { $gt: from, $lte: to } })
      .sort({ at: 1 })
      .lean(),
  ]);
  // One timeline of known prices: the log's events and the scheduled snapshots.
  const known = [
    ...events.map((e) => ({ at: e.at.getTime(), price: e.priceAfter })),
    ...snapshots.map((p) => ({ at: p.at.getTime(), price: p.priceYes })),
  ].sort((a, b) => a.at - b.at);
  const opening = [
    eventBefore && { at: eventBefore.at.getTime(), price: eventBefore.priceAfter },
    pointBefore && { at: pointBefore.at.getTime(), price: pointBefore.priceYes },
  ]
    .filter((x): x is { at: number; price: number | null } => Boolean(x))
    .sort((a, b) => b.at - a.at)[0];
  let current = opening?.price ?? openingPrice(market.book);
  const points: { timestamp: string; price_yes: number; price_no: number }[] = [];
  let i = 0;
  for (let t = start + stepMs; t <= end; t += stepMs) {
    while (i < known.length && known[i]!.at <= t) current = known[i++]!.price ?? current;
    points.push({ timestamp: new Date(t).toISOString(), price_yes: px(current), price_no: px(1 - current) });
  }
  return { market_id: marketId, points, interval_minutes: intervalMinutes, hours };
}
