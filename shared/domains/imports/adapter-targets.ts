import type { Deps } from '../../composition/deps.js';
import { refuseImport } from './import-refusal.js';
import type { ImportTargets } from './import-targets.js';
import type { MarketImportRecord } from './market-import.model.js';

/**
 * The markets a request names on a venue with no finder of its own (registered venues past the
 * built-in ones), read through the adapter seam alone: slugs by `marketBySlug`/`eventBySlug`, a
 * ticker as the market's venue id, a series as its open event closing soonest.
 */
export async function findTargetsThroughAdapter(deps: Deps, req: MarketImportRecord): Promise<ImportTargets> {
  const venue = deps.venues.get(req.venue);
  if (req.kind === 'series') {
    const [event] = (await venue.openEventsOfSeries?.(req.series!)) ?? [];
    if (event) return { event, markets: event.markets, wholeEvent: true };
  } else if (req.kind === 'event') {
    const event = await venue.eventBySlug(req.eventSlug!);
    if (event) return { event, markets: event.markets, wholeEvent: true };
  } else {
    const market = req.ticker
      ? await venue.market({ externalId: req.ticker })
      : await venue.marketBySlug(req.marketSlug!);
    if (market) return { event: null, markets: [market], wholeEvent: false };
  }
  throw refuseImport(
    404,
    'market_not_found',
    `No ${req.venue} ${req.kind} matches ${req.url}`,
    `Copy the URL of the market page on ${req.venue}, or list importable markets with GET /api/sdk/markets/importable?venue=${req.venue}.`,
  );
}
