import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { Filled, SchemaRecord } from '../schema-record.js';
import { venueIdPath } from '../venues/venue-id.js';

/**
 * What a counted buy took, kept on the trade so its outcome can give it back (limits/counters.ts
 * takes and gives it back; the trade record stores it).
 */
export interface Admission {
  id: string;
  ownerKey: string;
  day: string;
  spendMicro: number;
  /** The market cooldown this buy opened, if any, and its expiry (given back with the count). */
  openedCooldown?: string | null;
  openedCooldownUntil?: number;
  /** What it reserved of the agent's automaton budget (limits/counters.ts BudgetReservation). */
  budget?: { key: string; gen: string; micro: number } | null;
}

/** Where a venue order's matches stand on chain (the trade's `venueOrder.settlement`). */
export const SETTLEMENT_STATES = ['pending', 'confirmed', 'failed'] as const;
export type SettlementState = (typeof SETTLEMENT_STATES)[number];

export const TRADE_STATUSES = [
  'pending',
  'executing',
  'open',
  'filled',
  'canceled',
  'rejected',
  'failed',
] as const;
export type TradeStatus = (typeof TRADE_STATUSES)[number];
/**
 * The worker is done with the trade and its answer is recorded. `open` (a venue order resting,
 * delayed or settling) still changes later, through the order sync, to `filled` or `canceled`.
 */
export const FINAL_TRADE_STATUSES: readonly TradeStatus[] = [
  'open',
  'filled',
  'canceled',
  'rejected',
  'failed',
];

/** A real-venue order: what was (or will be) sent, and what the venue has matched of it so far. */
const venueOrderSchema = new Schema(
  {
    /** The venue's order id (on Polymarket the order's EIP-712 hash); null until signed. */
    orderId: { type: String, default: null },
    /** The signed order as sent (public data: no key material). */
    signed: { type: Schema.Types.Mixed, default: null },
    orderType: { type: String, required: true },
    /**
     * `external`: the agent signed it; `managed`: the service signs with the owner's managed wallet;
     * `agent`: the service signs with the agent's own wallet (the trade's `wallet_address`).
     */
    signer: { type: String, enum: ['external', 'managed', 'agent'], required: true },
    tokenId: { type: String, required: true },
    negRisk: { type: Boolean, required: true },
    tickSize: { type: Number, required: true },
    /** The limit price of the traded outcome (the worst price a market order accepts). */
    price: { type: Number, required: true },
    /** The venue's last word: live, matched, delayed, unmatched, canceled. */
    status: { type: String, default: null },
    /** What is booked on the position so far (the sync books the rest as the venue matches it). */
    matchedSharesMicro: { type: Number, default: 0 },
    matchedAmountMicro: { type: Number, default: 0 },
    syncedAt: { type: Date, default: null },
    /**
     * On a venue whose matches settle on chain after the match (VenueTrading `settlement`): `pending`
     * from the first booked match until the chain's final word, then `confirmed`, or `failed` (the
     * booking rolled back: venue-settlement.ts). Null on venues whose fills are final at once.
     */
    settlement: { type: String, enum: [...SETTLEMENT_STATES, null], default: null },
    /** When a `pending` settlement was first found overdue (venue-settlement.ts); kept once final. */
    settlementOverdueAt: { type: Date, default: null },
    /** An overdue settlement is not asked about again before this (its backoff). */
    settlementNextLookAt: { type: Date, default: null },
  },
  { _id: false },
);

/**
 * A trade request and its outcome. The API inserts it `pending`; the worker claims it with a guarded
 * change to `executing` and ends it `filled` or `rejected` (a business refusal) — or `failed` when it
 * could not even be queued. `result` is the answer the client got (or gets on replay).
 */
const tradeSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    marketId: { type: String, required: true },
    venue: venueIdPath,
    side: { type: String, enum: ['yes', 'no'], required: true },
    action: { type: String, enum: ['buy', 'sell'], required: true },
    amountMicro: { type: Number, required: true, default: 0 },
    sharesMicro: { type: Number, required: true, default: 0 },
    orderType: { type: String, default: null },
    limitPrice: { type: Number, default: null },
    reasoning: { type: String, default: null },
    source: { type: String, default: null },
    skillSlug: { type: String, default: null },
    signalData: { type: Schema.Types.Mixed, default: null },
    idempotencyKey: { type: String, default: null },
    warnings: { type: [String], default: [] },
    status: { type: String, enum: TRADE_STATUSES, required: true, default: 'pending' },
    fill: {
      type: new Schema(
        {
          sharesMicro: Number,
          amountMicro: Number,
          priceBefore: Number,
          priceAfter: Number,
          balanceAfterMicro: Number,
        },
        { _id: false },
      ),
      default: null,
    },
    errorCode: { type: String, default: null },
    failureCategory: { type: String, default: null },
    failureReason: { type: String, default: null },
    result: { type: Schema.Types.Mixed, default: null },
    /** What the buy took from the owner's daily limits (limits/counters.ts), given back if it does not fill. */
    /** Whose settings apply (limits/settings-owner.ts): the worker checks the kill switch again. */
    ownerKey: { type: String, default: null },
    admission: { type: Schema.Types.Mixed, default: null },
    /** The admission was given back (a buy that did not fill); see limits/trade-guard.ts. */
    admissionSettled: { type: Boolean, default: false },
    /** Times the reconcile job resumed this trade after its job was lost or failed for good. */
    resumeCount: { type: Number, default: 0 },
    executedAt: { type: Date, default: null },
    /** Which group commit claimed it (trade-lifecycle.ts claimTrades): tells its own claims apart. */
    claimId: { type: String, default: null },
    finishedAt: { type: Date, default: null },
    /**
     * A venue order that closed filled after its trade job: false from the close until its fill's
     * effects are queued (queueLateFillEffects), so that a sweep finds a close whose enqueue failed.
     */
    lateEffectsQueued: { type: Boolean, default: undefined },
    venueOrder: { type: venueOrderSchema, default: null },
  },
  { collection: 'trades', timestamps: true, versionKey: false },
);
tradeSchema.index({ agentId: 1, createdAt: -1 });
tradeSchema.index({ agentId: 1, marketId: 1, createdAt: -1 });
// The briefing's skill picks: which skills an agent has traded with, from the index alone.
tradeSchema.index({ agentId: 1, skillSlug: 1 });
tradeSchema.index({ marketId: 1, status: 1 });
tradeSchema.index({ status: 1, createdAt: 1 });
// The reconcile job: trades left pending or executing, oldest first.
tradeSchema.index({ status: 1, updatedAt: 1 });
// The order sync and the open-orders list: an owner's venue orders still open.
tradeSchema.index({ venue: 1, status: 1 });
tradeSchema.index({ agentId: 1, status: 1 });
// The settlement follow-up: filled venue trades whose matches the chain has not settled yet.
tradeSchema.index({ 'venueOrder.settlement': 1, status: 1 });
// A resend under an idempotency key whose answer Redis lost finds the trade recorded under it.
tradeSchema.index({ agentId: 1, idempotencyKey: 1 });

/** Its paths have defaults or are required, so all are present; `signed` is a Mixed path. */
export type VenueOrder = Omit<
  Required<NonNullable<InferSchemaType<typeof tradeSchema>['venueOrder']>>,
  'signed' | 'settlement' | 'settlementOverdueAt' | 'settlementNextLookAt'
> & {
  signed: unknown;
  settlement?: SettlementState | null;
  settlementOverdueAt?: Date | null;
  settlementNextLookAt?: Date | null;
};

export type TradeRecord = SchemaRecord<
  typeof tradeSchema,
  {
    // Mixed paths, which mongoose types as `any`.
    signalData: unknown;
    result: unknown;
    admission: Admission | null;
    venueOrder: VenueOrder | null;
    // The fill is written whole, so its shorthand `Number` paths are all set.
    fill: Filled<NonNullable<InferSchemaType<typeof tradeSchema>['fill']>> | null;
  }
>;
export type TradeModel = Model<TradeRecord>;

export function tradeModel(conn: Connection): TradeModel {
  return (conn.models.Trade as TradeModel | undefined) ?? conn.model<TradeRecord>('Trade', tradeSchema);
}

/** A trade that moved shares: filled, or a venue order that has matched part of its size. */
export const FILLED = {
  status: { $in: ['filled', 'open'] satisfies TradeStatus[] },
  'fill.sharesMicro': { $gt: 0 },
};
