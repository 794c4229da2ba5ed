import type { ImportTargets, VenueAdapter, VenueImporting, VenueMarket } from '../venue-adapter.js';

const FIX =
  'Send a Kalshi ticker (e.g. KXHIGHNY-26FEB19-B43.5, any case) or the URL of the market page on kalshi.com, or list importable markets with GET /api/sdk/markets/importable?venue=kalshi.';

/**
 * Outcomes of a whole Kalshi event priced under 2¢ or over 98¢ are decided in effect and left out
 * (kalshi.md §1.6 step 5); one named market is imported whatever its price.
 */
const EXTREME = 0.02;
const isExtreme = (m: VenueMarket) =>
  m.yesPrice !== null && (m.yesPrice < EXTREME || m.yesPrice > 1 - EXTREME);

/**
 * Imports from Kalshi, by tickers only (kalshi.md §1.6 step 4):
 * - `ticker` (`import/kalshi`): a market ticker is that market; else an event ticker is its event;
 *   settled markets past the historical cutoff come from /historical (and are then refused as resolved);
 * - `event` (`import/kalshi/event`): the event, or the event of a market ticker;
 * - `series` (a series page or a bare series ticker): its open event closing soonest.
 */
export function kalshiImporting(
  kalshi: Pick<VenueAdapter, 'eventBySlug' | 'marketBySlug'> &
    Required<Pick<VenueAdapter, 'openEventsOfSeries'>>,
): VenueImporting {
  return {
    label: 'Kalshi',
    invalidInput: {
      msg: 'not a Kalshi ticker or kalshi.com URL',
      fix: 'Send a Kalshi ticker or the URL of a kalshi.com market page.',
    },
    moreOutcomes: 'Import others one at a time by ticker with POST /api/sdk/markets/import/kalshi.',
    skipOpenOutcome: (m) => (isExtreme(m) ? `priced at ${m.yesPrice} on Kalshi: decided in effect` : null),
    async targets(req) {
      if (req.kind === 'series') {
        const [event] = await kalshi.openEventsOfSeries(req.series!);
        if (event) return { event, markets: event.markets, wholeEvent: true };
        return { notFound: `No open Kalshi event in series ${req.series}`, fix: FIX };
      }
      const ticker = req.ticker!;
      let found: ImportTargets | null = null;
      if (req.kind === 'event') {
        let event = await kalshi.eventBySlug(ticker);
        if (!event) {
          const market = await kalshi.marketBySlug(ticker);
          if (market?.eventSlug) event = await kalshi.eventBySlug(market.eventSlug);
        }
        if (event) found = { event, markets: event.markets, wholeEvent: true };
      } else {
        const market = await kalshi.marketBySlug(ticker);
        const event = market ? null : await kalshi.eventBySlug(ticker);
        if (market) found = { event: null, markets: [market], wholeEvent: false };
        else if (event) found = { event, markets: event.markets, wholeEvent: true };
      }
      return found ?? { notFound: `No Kalshi market or event with ticker ${ticker}`, fix: FIX };
    },
  };
}
