/**
 * The venues this service knows, and the names clients may use for them. The built-in venues are
 * always known; the composition root may register more (a `VenueRegistry` registers every adapter
 * it is given), so the set is read at run time: requests and stored documents are checked against
 * the venues of this process, not against a list fixed when the code was written.
 */
export const BUILT_IN_VENUE_IDS = ['sim', 'polymarket', 'kalshi'] as const;
export type BuiltInVenueId = (typeof BUILT_IN_VENUE_IDS)[number];

declare const registeredVenue: unique symbol;
/**
 * A venue's id: a built-in one, or a string that passed `isVenueId`/`normalizeVenue` (a registered
 * venue). The brand keeps an unchecked string from passing for a venue.
 */
export type VenueId = BuiltInVenueId | (string & { readonly [registeredVenue]: true });
/** External venues: their orders fill on the venue's own book, not on our pool (`POOL_VENUE`). */
export type ExternalVenueId = Exclude<VenueId, 'sim'>;

/**
 * The spec's default venue: where a request naming none trades, the board and tab shown first. Pages
 * and answers that name it take its name from here.
 */
export const DEFAULT_VENUE = 'sim' as const satisfies BuiltInVenueId;

/**
 * The venue that trades on our own pool: every market's LMSR book in this service, paid from the
 * agent's $SIM balance; markets created here (not imported) are its own. Every other venue is
 * external: its orders fill on the venue's book, at the venue's price.
 */
export const POOL_VENUE = 'sim' as const satisfies BuiltInVenueId;

/** Whether `venue` (a trade's, a position's, a market's import source) is our own pool's. */
export const isPoolVenue = (venue: string | null | undefined): boolean => venue === POOL_VENUE;

/** Whether `venue` fills on its own book (every venue but our pool's). */
export const isExternalVenue = (venue: VenueId): venue is ExternalVenueId => !isPoolVenue(venue);
/** The external venues built in (the ones with import listings of their own). */
export const BUILT_IN_EXTERNAL_VENUE_IDS = [
  'polymarket',
  'kalshi',
] as const satisfies readonly ExternalVenueId[];

/**
 * External venues whose orders a trade request can place by itself (the service signs, or relays
 * an order signed beforehand), so a batch of trades may go there. On the others (Kalshi, through
 * DFlow) every order is a transaction quoted first and then signed by the client.
 */
export const BATCHABLE_EXTERNAL_VENUE_IDS = ['polymarket'] as const satisfies readonly ExternalVenueId[];

/** The venue `GET /api/sdk/markets/importable` lists when the request names none. */
export const DEFAULT_IMPORT_VENUE: (typeof BUILT_IN_EXTERNAL_VENUE_IDS)[number] = 'polymarket';

/** Earlier names of `sim`, still accepted with a deprecation warning (spec §9). */
export const LEGACY_SIM_ALIASES = ['simmer', 'sandbox'] as const;

const known = new Set<string>(BUILT_IN_VENUE_IDS);

/**
 * Makes `id` a venue of this process (the composition root's registration). Ids are lower-case
 * words, as clients send them; a legacy alias of sim cannot become a venue of its own.
 */
export function registerVenueId(id: string): VenueId {
  if (!/^[a-z][a-z0-9-]*$/.test(id)) throw new Error(`venue id "${id}" is not a lower-case word`);
  if ((LEGACY_SIM_ALIASES as readonly string[]).includes(id))
    throw new Error(`venue id "${id}" is a legacy name of sim`);
  known.add(id);
  return id as VenueId;
}

/** Every venue of this process, the built-in ones first. */
export const venueIds = (): VenueId[] => [...known] as VenueId[];
/** The external venues of this process (every venue but our pool's). */
export const externalVenueIds = (): ExternalVenueId[] => venueIds().filter(isExternalVenue);
/** Every spelling a request may carry: the venues, then sim's legacy aliases. */
export const venueNames = (): string[] => [...venueIds(), ...LEGACY_SIM_ALIASES];

export const isVenueId = (v: unknown): v is VenueId => typeof v === 'string' && known.has(v);

/**
 * The venues an answer keyed by venue lists: the built-in ones always (clients read those keys,
 * null or not), a registered one only when `present` says the answer has something of it.
 */
export const listedVenues = <V extends VenueId>(venues: readonly V[], present: (v: V) => boolean): V[] =>
  venues.filter((v) => (BUILT_IN_VENUE_IDS as readonly string[]).includes(v) || present(v));

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

/**
 * The mongoose path of a stored venue id: checked against the venues of this process when a
 * document is saved. Declared to TypeScript as an `enum` path, since mongoose infers a path's type
 * from its `enum`; a real `enum` would fix the list when the schema is built, before any venue
 * is registered.
 */
interface VenueIdPath<V> {
  type: StringConstructor;
  enum: readonly V[];
  required: true;
}
const venuePath = <V>(accepts: (v: unknown) => boolean, what: string) =>
  ({
    type: String,
    required: true,
    validate: {
      validator: (v: unknown) => v === null || v === undefined || accepts(v),
      message: (props: { value: unknown }) => `\`${String(props.value)}\` is not ${what} of this service`,
    },
  }) as unknown as VenueIdPath<V>;

export const venueIdPath = venuePath<VenueId>(isVenueId, 'a venue');
/** For fields that hold an external venue only (imported markets, imports). */
export const externalVenueIdPath = venuePath<ExternalVenueId>(
  (v) => isVenueId(v) && isExternalVenue(v),
  'an external venue',
);
