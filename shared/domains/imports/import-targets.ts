import type { VenueEvent, VenueMarket } from '../venues/venue-adapter.js';

/** What a request names on its venue: one market, or an event's markets (`wholeEvent`). */
export interface ImportTargets {
  event: VenueEvent | null;
  markets: VenueMarket[];
  /** The agent asked for a whole event (a page of outcomes), not one market. */
  wholeEvent: boolean;
}
