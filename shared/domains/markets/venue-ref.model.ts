import { Schema } from 'mongoose';
import type { VenueMarketKey } from '../venues/venue-adapter.js';
import { externalVenueIdPath, type ExternalVenueId } from '../venues/venue-id.js';

/**
 * Where an imported market lives on its venue. It is the adapters' own `VenueMarketKey` plus the
 * venue, so a stored market is handed to its adapter as it is; sim markets have none (null).
 */
export interface MarketVenueRef extends VenueMarketKey {
  venue: ExternalVenueId;
  /** Polymarket condition id (lower case) or Kalshi market ticker (upper case). */
  externalId: string;
  yesTokenId: string | null;
  noTokenId: string | null;
  /** Polymarket: the market belongs to a neg-risk event (its orders and redemptions go elsewhere). */
  negRisk: boolean | null;
}

export const venueRefSchema = new Schema(
  {
    venue: externalVenueIdPath,
    externalId: { type: String, required: true },
    yesTokenId: { type: String, default: null },
    noTokenId: { type: String, default: null },
    negRisk: { type: Boolean, default: null },
  },
  { _id: false },
);
