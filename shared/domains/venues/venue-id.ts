/**
 * The venues this service knows, and the names clients may use for them. Every other module takes
 * its venue type and alias handling from here, so adding a venue is one edit.
 */
export const VENUE_IDS = ['sim', 'polymarket', 'kalshi'] as const;
export type VenueId = (typeof VENUE_IDS)[number];
/** External venues: trading there moves real money and needs a claimed agent. */
export type ExternalVenueId = Exclude<VenueId, 'sim'>;
export const EXTERNAL_VENUE_IDS = VENUE_IDS.filter((v): v is ExternalVenueId => v !== 'sim');

/**
 * External venues whose orders a trade request can place by itself (the service signs, or relays
 * an order signed beforehand), so a batch of trades may go there. On the others (Kalshi, through
 * DFlow) every order is a transaction quoted first and then signed by the client.
 */
export const BATCHABLE_EXTERNAL_VENUE_IDS = ['polymarket'] as const satisfies readonly ExternalVenueId[];

/** The venue `GET /api/sdk/markets/importable` lists when the request names none. */
export const DEFAULT_IMPORT_VENUE: ExternalVenueId = 'polymarket';

/** Earlier names of `sim`, still accepted with a deprecation warning (spec §9). */
export const LEGACY_SIM_ALIASES = ['simmer', 'sandbox'] as const;
/** Every spelling a request may carry, for zod enums. */
export const VENUE_NAMES = [...VENUE_IDS, ...LEGACY_SIM_ALIASES] as const;

export const isVenueId = (v: unknown): v is VenueId =>
  typeof v === 'string' && (VENUE_IDS as readonly string[]).includes(v);

export interface NormalizedVenue {
  venue: VenueId;
  /** Set when the client used a deprecated alias: the warning to return with the answer. */
  warning: string | null;
}

/** `SIM`, ` simmer ` → sim (with a warning for the alias); null for a name that is no venue. */
export function normalizeVenue(raw: string): NormalizedVenue | null {
  const v = raw.trim().toLowerCase();
  if (isVenueId(v)) return { venue: v, warning: null };
  if ((LEGACY_SIM_ALIASES as readonly string[]).includes(v))
    return { venue: 'sim', warning: `venue "${v}" is deprecated; use "sim" (same venue).` };
  return null;
}
