import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { priceHistory } from './history.js';
import { isPoolVenue } from '../venues/venue-id.js';

const px = (p: number) => Math.round(p * 1e6) / 1e6;

/**
 * `GET /api/markets/{market_id}/history`: what the dashboard's chart draws. The sim price comes from
 * the same downsampled grid as the agents' history (plus the price now, so the line reaches the
 * present); the external price is the venue price the book was re-anchored to at each sync (null
 * on sim markets); every fill in the window is a trade marker at the price it left the book at.
 */
export async function marketChartHistory(
  models: Models,
  marketId: string,
  hours: number,
  intervalMinutes: number,
  now: Date,
) {
  const history = await priceHistory(models, marketId, hours, intervalMinutes, now);
  const [market, anchorBefore, events] = await Promise.all([
    models.Market.findById(marketId, {
      question: 1,
      currentPrice: 1,
      externalPriceYes: 1,
      importSource: 1,
      createdAt: 1,
      'book.anchorPrice': 1,
    }).lean(),
    models.MarketEvent.findOne(
      { marketId, kind: 'anchor', at: { $lte: new Date(now.getTime() - hours * 3600_000) } },
      { anchorPrice: 1 },
    )
      .sort({ seq: -1 })
      .lean(),
    models.MarketEvent.find(
      {
        marketId,
        kind: { $in: ['fill', 'anchor'] },
        at: { $gt: new Date(now.getTime() - hours * 3600_000) },
      },
      { kind: 1, side: 1, action: 1, amountMicro: 1, sharesMicro: 1, priceAfter: 1, anchorPrice: 1, at: 1 },
    )
      .sort({ seq: 1 })
      .lean(),
  ]);
  const created = market?.createdAt ? new Date(market.createdAt).getTime() : 0;
  const stepMs = intervalMinutes * 60_000;
  // A grid point a whole interval before the market existed only repeats its opening price.
  const grid = history.points.filter((p) => Date.parse(p.timestamp) > created - stepMs);
  const anchors = events.filter((e) => e.kind === 'anchor' && e.anchorPrice !== undefined);
  const imported = !isPoolVenue(market?.importSource);
  // Before the first re-anchoring in the window the venue price is the last one known before it, or
  // else the earliest one known; a market never re-anchored has the one its book last synced to.
  const venuePriceBefore =
    anchorBefore?.anchorPrice ??
    anchors[0]?.anchorPrice ??
    market?.book?.anchorPrice ??
    market?.externalPriceYes;
  const externalAt = (t: number) => {
    if (!imported || t < created) return null;
    let price = venuePriceBefore ?? null;
    for (const a of anchors) if (a.at.getTime() <= t) price = a.anchorPrice!;
    return price === null ? null : px(price);
  };
  const points = grid
    .filter((p) => Date.parse(p.timestamp) >= created)
    .map((p) => ({
      timestamp: p.timestamp,
      price_yes: p.price_yes,
      external_price_yes: externalAt(Date.parse(p.timestamp)),
    }));
  // A market created inside the window starts its lines where it was created, at its opening price
  // (the grid's value before the creation: no event had moved the book yet).
  const beforeCreation = grid.filter((p) => Date.parse(p.timestamp) < created).at(-1);
  if (beforeCreation)
    points.unshift({
      timestamp: new Date(created).toISOString(),
      price_yes: beforeCreation.price_yes,
      external_price_yes: externalAt(created),
    });
  const last = points.at(-1);
  if (market && (!last || Date.parse(last.timestamp) < now.getTime()))
    points.push({
      timestamp: now.toISOString(),
      price_yes: px(market.currentPrice),
      external_price_yes: imported && market.externalPriceYes != null ? px(market.externalPriceYes) : null,
    });
  return {
    market_id: marketId,
    question: market?.question ?? '',
    hours,
    interval_minutes: intervalMinutes,
    has_external_price: imported,
    points,
    trades: events
      .filter((e) => e.kind === 'fill')
      .map((e) => ({
        timestamp: e.at.toISOString(),
        side: e.side,
        action: e.action,
        amount: fromMicro(e.amountMicro),
        shares: fromMicro(e.sharesMicro),
        price_after: px(e.priceAfter ?? 0),
      })),
  };
}
export type MarketChartHistory = Awaited<ReturnType<typeof marketChartHistory>>;
