import type { VenueAdapter, VenueImporting } from './venue-adapter.js';

/**
 * How markets are imported from a venue that says nothing of its own about importing (a venue
 * registered past the built-in ones): through its market data alone. A page slug names a market
 * or an event, a ticker names a market by its venue id, a series its open event closing soonest.
 */
export function adapterImporting(venue: VenueAdapter): VenueImporting {
  const fix = `Copy the URL of the market page on ${venue.id}, or list importable markets with GET /api/sdk/markets/importable?venue=${venue.id}.`;
  return {
    label: venue.id,
    invalidInput: {
      msg: `not a ${venue.id} market URL`,
      fix: `Send the URL of a market page on ${venue.id}.`,
    },
    moreOutcomes: 'Import the others one at a time by their market URLs.',
    async targets(req) {
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
      const named = req.ticker ?? req.series ?? req.eventSlug ?? req.marketSlug;
      return { notFound: `No ${venue.id} ${req.kind} matches ${named}`, fix };
    },
  };
}
