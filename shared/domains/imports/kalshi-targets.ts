import type { Deps } from '../../composition/deps.js';
import { refuseImport } from './import-refusal.js';
import type { MarketImportRecord } from './market-import.model.js';
import type { ImportTargets } from './import-targets.js';

const FIX =
  'Send a Kalshi ticker (e.g. KXHIGHNY-26FEB19-B43.5, any case) or the URL of the market page on kalshi.com, or list importable markets with GET /api/sdk/markets/importable?venue=kalshi.';

/**
 * The Kalshi markets a request names, resolved by tickers only (kalshi.md §1.6 step 4):
 * - `ticker` (`import/kalshi`): a market ticker is that market; else an event ticker is its event;
 *   settled markets past the historical cutoff come from /historical (and are then refused as resolved);
 * - `event` (`import/kalshi/event`): the event, or the event of a market ticker;
 * - `series` (a series page or a bare series ticker): its open event closing soonest.
 */
export async function findKalshiTargets(deps: Deps, req: MarketImportRecord): Promise<ImportTargets> {
  const kalshi = deps.venues.get('kalshi');
  if (req.kind === 'series') {
    const [event] = (await kalshi.openEventsOfSeries?.(req.series!)) ?? [];
    if (event) return { event, markets: event.markets, wholeEvent: true };
    throw refuseImport(404, 'market_not_found', `No open Kalshi event in series ${req.series}`, FIX);
  }
  const ticker = req.ticker!;
  if (req.kind === 'event') {
    let event = await kalshi.eventBySlug(ticker);
    if (!event) {
      const market = await kalshi.marketBySlug(ticker);
      if (market?.eventSlug) event = await kalshi.eventBySlug(market.eventSlug);
    }
    if (event) return { event, markets: event.markets, wholeEvent: true };
  } else {
    const market = await kalshi.marketBySlug(ticker);
    if (market) return { event: null, markets: [market], wholeEvent: false };
    const event = await kalshi.eventBySlug(ticker);
    if (event) return { event, markets: event.markets, wholeEvent: true };
  }
  throw refuseImport(404, 'market_not_found', `No Kalshi market or event with ticker ${ticker}`, FIX);
}
