import { normalizeExternalId } from './venue-conventions.js';
import type { ExternalVenueId } from './venue-id.js';

/**
 * Recognisers of the identifiers agents paste in place of a service market_id. One copy, used by
 * trade refusals, market reads, checks and imports alike.
 */
export const SERVICE_MARKET_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Polymarket condition id: 0x + 64 hex. */
export const CONDITION_ID = /^0x[0-9a-f]{64}$/i;
/** Polymarket CLOB token id: the decimal string of a uint256. */
export const TOKEN_ID = /^\d{20,78}$/;
/** Kalshi market ticker, e.g. KXBTCD-25DEC3117-T99999.99 (upper case, dash-separated parts). */
export const KALSHI_TICKER = /^[A-Z0-9]+(-[A-Z0-9.]+)+$/;

export type ExternalIdKind = 'condition_id' | 'token_id' | 'ticker';
export interface ExternalIdMatch {
  venue: ExternalVenueId;
  kind: ExternalIdKind;
  /** The form stored on markets (condition ids lower case, tickers upper case). */
  value: string;
}

export const isServiceMarketId = (id: string) => SERVICE_MARKET_ID.test(id);
/** Every id this service mints (agents, markets, trades) is a UUID of this form. */
export const isServiceId = isServiceMarketId;

/** The venue each kind of external id belongs to. */
export const VENUE_OF_ID_KIND: Record<ExternalIdKind, ExternalVenueId> = {
  condition_id: 'polymarket',
  token_id: 'polymarket',
  ticker: 'kalshi',
};

/** What external id `id` looks like, or null when it looks like none (e.g. a service UUID). */
export function recogniseExternalId(id: string): ExternalIdMatch | null {
  const s = id.trim();
  const kind: ExternalIdKind | null = CONDITION_ID.test(s)
    ? 'condition_id'
    : TOKEN_ID.test(s)
      ? 'token_id'
      : KALSHI_TICKER.test(s)
        ? 'ticker'
        : null;
  if (!kind) return null;
  const venue = VENUE_OF_ID_KIND[kind];
  return { venue, kind, value: normalizeExternalId(venue, s) };
}

/** Human label of an external id kind, for hints. */
export const EXTERNAL_ID_LABEL: Record<ExternalIdKind, string> = {
  condition_id: 'Polymarket condition id',
  token_id: 'Polymarket token id',
  ticker: 'Kalshi ticker',
};
