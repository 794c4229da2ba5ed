import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';
import { POOL_VENUE, type VenueId, venueIdPath } from '../venues/venue-id.js';
import { venueRefSchema, type MarketVenueRef } from './venue-ref.model.js';

export const MARKET_STATUSES = ['active', 'closed', 'resolved'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];
/** Where a market comes from: the generated sim catalogue or an import from a venue. */
export type MarketSource = VenueId;

/**
 * The sim order book: an LMSR whose outstanding shares are the anchor `q0` plus the sum of all
 * fills (in micro-shares, integers, so "the book equals the sum of its fills" holds exactly).
 * `version` is the sequence number of the last market event applied (see market-log.ts).
 */
const bookSchema = new Schema(
  {
    b: { type: Number, required: true },
    q0Yes: { type: Number, required: true },
    q0No: { type: Number, required: true },
    yesMicro: { type: Number, required: true, default: 0 },
    noMicro: { type: Number, required: true, default: 0 },
    version: { type: Number, required: true, default: 0 },
    /** When the anchor was last moved toward the venue price (imported markets; see reanchor.ts). */
    anchoredAt: { type: Date, default: null },
    /** The venue YES price the book was last anchored to: the book minus it is the agents' impact. */
    anchorPrice: { type: Number, default: null },
  },
  { _id: false },
);

const marketSchema = new Schema(
  {
    _id: { type: String, required: true },
    question: { type: String, required: true },
    description: { type: String, default: null },
    status: { type: String, enum: MARKET_STATUSES, required: true, default: 'active' },
    importSource: { ...venueIdPath, default: POOL_VENUE },
    category: { type: String, default: null },
    tags: { type: [String], default: [] },
    url: { type: String, default: null },
    eventId: { type: String, default: null },
    eventName: { type: String, default: null },
    outcomeName: { type: String, default: null },
    eventRef: { type: String, default: null },
    resolvesAt: { type: Date, default: null },
    resolvedAt: { type: Date, default: null },
    /** Set once every position of the resolved market has been paid. */
    settledAt: { type: Date, default: null },
    outcome: { type: Boolean, default: null },
    /**
     * What a YES share pays at the resolution, micro-units (resolution.ts): 1 or 0 when an outcome
     * won, 0.5 for a 50-50 (void) one, a fraction for a Kalshi scalar result. Null until resolved
     * (and on markets resolved before it was recorded, whose outcome says it).
     */
    payoutYesMicro: { type: Number, default: null },
    resolutionCriteria: { type: String, default: null },
    /** YES price after the last applied event (clamped), denormalised for lists and sorting. */
    currentPrice: { type: Number, required: true },
    externalPriceYes: { type: Number, default: null },
    /** The venue's top of book at the last price sync (imported markets). */
    externalBestBid: { type: Number, default: null },
    externalBestAsk: { type: Number, default: null },
    externalSpread: { type: Number, default: null },
    externalQuotedAt: { type: Date, default: null },
    volume24hMicro: { type: Number, required: true, default: 0 },
    /** 24 h volume from outside our book (the generated catalogue's, or the venue's for imports). */
    baseVolume24hMicro: { type: Number, required: true, default: 0 },

    volumeTotalMicro: { type: Number, required: true, default: 0 },
    lastTradeAt: { type: Date, default: null },
    /** Imported markets: the market on its venue (venue-ref.model.ts); null for sim markets. */
    venueRef: { type: venueRefSchema, default: null },
    /** The venue's own slug of the market (imported markets): what a market URL names. */
    venueSlug: { type: String, default: null },
    /** The import request that created this market (null for the catalogue and automatic imports). */
    importedBy: { type: String, default: null },
    tickSize: { type: Number, required: true, default: 0.01 },
    feeRateBps: { type: Number, required: true, default: 0 },
    isSdkOnly: { type: Boolean, required: true, default: false },
    isPaid: { type: Boolean, required: true, default: false },
    simTradeable: { type: Boolean, required: true, default: true },
    isOrderbookOpen: { type: Boolean, required: true, default: true },
    /** Tracking markets (real trading only): hidden from lists unless include_analytics_only. */
    analyticsOnly: { type: Boolean, required: true, default: false },
    /** Stable key of a generated catalogue market, so seeding is idempotent. */
    seedKey: { type: String, default: null },
    book: { type: bookSchema, required: true },
  },
  { collection: 'markets', timestamps: true, versionKey: false },
);
marketSchema.index({ status: 1, volume24hMicro: -1, createdAt: -1 });
marketSchema.index({ eventId: 1 });
// One index per list filter and sort of GET /api/sdk/markets, /api/markets and fast markets.
marketSchema.index({ status: 1, resolvesAt: 1 });
marketSchema.index({ status: 1, createdAt: -1 });
marketSchema.index({ status: 1, lastTradeAt: -1 });
marketSchema.index({ status: 1, resolvedAt: -1 });
marketSchema.index({ importSource: 1, status: 1, settledAt: 1 });
marketSchema.index({ tags: 1 });
marketSchema.index({ seedKey: 1 });
// Imports, checks and trades by external id look a market up by venue and id.
marketSchema.index({ 'venueRef.venue': 1, 'venueRef.externalId': 1 });
// Venue sync walks the open imported markets of one venue in _id order.
marketSchema.index({ importSource: 1, status: 1, _id: 1 });
marketSchema.index({ venueSlug: 1 });
marketSchema.index({ importedBy: 1 });
marketSchema.index({ url: 1 });

// Builders (catalogue.ts, imported-market.ts) leave updatedAt to mongoose: an upsert's $setOnInsert may not carry it.
// `payoutYesMicro` is absent on markets stored before it existed, and builders of unresolved markets leave it out.
export type MarketRecord = SchemaRecord<
  typeof marketSchema,
  { updatedAt?: Date; venueRef: MarketVenueRef | null; payoutYesMicro?: number | null }
>;
export type MarketModel = Model<MarketRecord>;

export function marketModel(conn: Connection): MarketModel {
  return (conn.models.Market as MarketModel | undefined) ?? conn.model<MarketRecord>('Market', marketSchema);
}
