import type { ImportRequestTarget, ImportTargets, VenueAdapter, VenueImporting } from '../venue-adapter.js';

/**
 * Imports from Polymarket by page slug: an event's markets (up to 10, or the ones asked for) or one
 * market.
 */
export function polymarketImporting(
  venue: Pick<VenueAdapter, 'eventBySlug' | 'marketBySlug'>,
): VenueImporting {
  async function targets(req: ImportRequestTarget): Promise<ImportTargets | null> {
    if (req.kind === 'market') {
      const market = await venue.marketBySlug(req.marketSlug!);
      if (market) return { event: null, markets: [market], wholeEvent: false };
      return null;
    }
    const event = await venue.eventBySlug(req.eventSlug!);
    if (event) return { event, markets: event.markets, wholeEvent: true };
    // A single-market event's page URL is also its market's slug (polymarket.md §1).
    const market = await venue.marketBySlug(req.eventSlug!);
    return market && { event: null, markets: [market], wholeEvent: false };
  }
  return {
    label: 'Polymarket',
    invalidInput: {
      msg: 'not a Polymarket event or market URL',
      fix: 'Send the URL of a Polymarket event or market page.',
    },
    moreOutcomes: 'Send market_ids (condition ids) to choose others.',
    async targets(req) {
      return (
        (await targets(req)) ?? {
          notFound: `No Polymarket ${req.kind} with slug "${req.kind === 'market' ? req.marketSlug : req.eventSlug}"`,
          fix: 'Copy the URL from the market page on polymarket.com (https://polymarket.com/event/<slug>), or list importable markets with GET /api/sdk/markets/importable.',
        }
      );
    },
  };
}
