import type { VenueEvent, VenueMarket } from './venue-adapter.js';

/** What a persisted import request names on its venue (the fields the venue's parse recorded). */
export interface ImportRequestTarget {
  kind: 'event' | 'market' | 'ticker' | 'series';
  eventSlug: string | null;
  marketSlug: string | null;
  ticker: string | null;
  series: string | null;
}

/** What a request names on its venue: one market, or an event's markets (`wholeEvent`). */
export interface ImportTargets {
  event: VenueEvent | null;
  markets: VenueMarket[];
  /** The agent asked for a whole event (a page of outcomes), not one market. */
  wholeEvent: boolean;
}

/** Nothing on the venue answers to the request: the sentence for the agent and what to send instead. */
export interface ImportTargetsNotFound {
  notFound: string;
  fix: string;
}

/**
 * How markets are imported from a venue, beyond its market data: what a request names there, and
 * the venue's own words and rules in the answer. Venues nothing is imported from have none.
 */
export interface VenueImporting {
  /** The venue's name in sentences ("closed for trading on Polymarket"). */
  readonly label: string;
  /** The 422 of an input the venue's parse does not take: its `msg`, and the `fix` when the parse gave no reason. */
  readonly invalidInput: { msg: string; fix: string };
  /** How an agent gets the outcomes of an event past the default number. */
  readonly moreOutcomes: string;
  /** The markets a request names, fetched from the venue. */
  targets(req: ImportRequestTarget): Promise<ImportTargets | ImportTargetsNotFound>;
  /**
   * Why an open outcome of a whole event is left out (e.g. Kalshi's priced past 98¢: decided in
   * effect), else null. Absent: every open outcome is importable.
   */
  skipOpenOutcome?(m: VenueMarket): string | null;
}

export const isNotFound = (t: ImportTargets | ImportTargetsNotFound): t is ImportTargetsNotFound =>
  'notFound' in t;
