import type { BuiltInVenueId, ExternalVenueId } from './venue-id.js';
import { normalizeExternalId } from './venue-conventions.js';

/** Where a stored market trades, as the records keep it (markets' `venueRef`). */
interface StoredVenueRef {
  venue: ExternalVenueId;
  externalId: string;
  yesTokenId: string | null;
  noTokenId: string | null;
  negRisk: boolean | null;
}
type RefOrNone = StoredVenueRef | null | undefined;

const polymarketRef = (ref: RefOrNone) => (ref?.venue === 'polymarket' ? ref : null);

/**
 * The per-venue id fields of a market row (spec §2.2, client-contract §5.1): each venue's id under
 * its own name, null (false for the flag) on markets of another venue or of sim.
 */
export function marketRefFields(ref: RefOrNone) {
  const polymarket = polymarketRef(ref);
  return {
    polymarket_id: polymarket?.externalId ?? null,
    polymarket_token_id: polymarket?.yesTokenId ?? null,
    polymarket_no_token_id: polymarket?.noTokenId ?? null,
    polymarket_neg_risk: polymarket?.negRisk ?? false,
    kalshi_ticker: ref?.venue === 'kalshi' ? ref.externalId : null,
  };
}

/**
 * The on-chain ids of a position's or an order's market (client-contract §6.1: the official client
 * signs sales by them): the Polymarket condition and outcome tokens, null elsewhere.
 */
export function conditionRefFields(ref: RefOrNone) {
  const polymarket = polymarketRef(ref);
  return {
    condition_id: polymarket?.externalId ?? null,
    token_id_yes: polymarket?.yesTokenId ?? null,
    token_id_no: polymarket?.noTokenId ?? null,
  };
}

/** The key each built-in venue's id of a market goes under in import answers (client-contract §5.6). */
const IMPORT_ID_KEY = {
  polymarket: 'polymarket_id',
  kalshi: 'kalshi_ticker',
} as const satisfies Record<BuiltInVenueId & ExternalVenueId, string>;

/**
 * The venue's own id of a market, under the key its clients read: `polymarket_id`, `kalshi_ticker`,
 * or `external_id` on a venue registered past the built-in ones.
 */
export type VenueIdField<V extends ExternalVenueId = ExternalVenueId> = V extends 'kalshi'
  ? { kalshi_ticker: string }
  : V extends 'polymarket'
    ? { polymarket_id: string }
    : { external_id: string };
export const venueIdField = (venue: ExternalVenueId, externalId: string) =>
  ({
    [(IMPORT_ID_KEY as Record<string, string>)[venue] ?? 'external_id']: normalizeExternalId(
      venue,
      externalId,
    ),
  }) as VenueIdField;

/**
 * The ids of a venue market in a `markets/importable` row: `condition_id` (null off Polymarket), and
 * on Kalshi its ticker.
 */
export const importableIdFields = (venue: ExternalVenueId, externalId: string) => ({
  condition_id: venue === 'polymarket' ? externalId : null,
  ...(venue === 'kalshi' ? { kalshi_ticker: externalId } : {}),
});
