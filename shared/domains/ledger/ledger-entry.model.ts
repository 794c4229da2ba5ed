import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { PositionStatus } from '../positions/position.model.js';
import type { Refusal } from '../refusal.js';
import type { Override, SchemaRecord } from '../schema-record.js';
import type { VenueId } from '../venues/venue-id.js';

/**
 * The agent's ledger: every change to an agent's money or positions is one entry with the next
 * sequence number of that agent. The unique (agentId, seq) index serialises them, so an entry is
 * decided from the exact state it applies to (a debit is checked against the balance it will
 * change: a balance can never go negative). The entry id is deterministic (`<tradeId>-reserve`,
 * `settle-<positionId>`, …), so a retried step finds its entry instead of applying twice.
 */
const ledgerEntrySchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    seq: { type: Number, required: true },
    kind: { type: String, required: true },
    tradeId: { type: String, default: null },
    /** Changes to the agent document's counters (micro-units for money). */
    agent: {
      balanceMicro: { type: Number, default: 0 },
      reservedMicro: { type: Number, default: 0 },
      realizedPnlMicro: { type: Number, default: 0 },
      tradesCount: { type: Number, default: 0 },
      simTradesCount: { type: Number, default: 0 },
      /** Trades on a real venue (the go_live nudges stop at the first). */
      realTradesCount: { type: Number, default: 0 },
      winCount: { type: Number, default: 0 },
      lossCount: { type: Number, default: 0 },
    },
    /** Balance right after this entry: what the trade answer reports as `balance`. */
    balanceAfterMicro: { type: Number, required: true },
    /** The agent's count of sim trades including this entry (for the go_live milestones). */
    simTradesAfter: { type: Number, required: true, default: 0 },
    /** Status the agent takes with this entry (e.g. `broke` when the balance reaches zero). */
    statusAfter: { type: String, default: null },
    position: {
      type: new Schema(
        {
          positionId: String,
          marketId: String,
          venue: String,
          sharesYesMicro: { type: Number, default: 0 },
          sharesNoMicro: { type: Number, default: 0 },
          costYesMicro: { type: Number, default: 0 },
          costNoMicro: { type: Number, default: 0 },
          reservedYesMicro: { type: Number, default: 0 },
          reservedNoMicro: { type: Number, default: 0 },
          realizedPnlMicro: { type: Number, default: 0 },
          payoutMicro: { type: Number, default: 0 },
          statusAfter: { type: String, default: null },
          source: { type: String, default: null },
          /** The wallet the fill landed in (venue-buy/venue-sell): the position's holder from then on. */
          holder: { type: String, default: null },
        },
        { _id: false },
      ),
      default: null,
    },
    /**
     * On a release: why the trade was refused after its reservation, so that a trade resumed after
     * the release answers with the refusal it met, not with whatever the book would say by then.
     */
    refusal: { type: Schema.Types.Mixed, default: undefined },
    at: { type: Date, required: true },
  },
  { collection: 'ledger_entries', versionKey: false },
);
ledgerEntrySchema.index({ agentId: 1, seq: 1 }, { unique: true });
ledgerEntrySchema.index({ tradeId: 1 });
// An agent's entries by time (the portfolio's realised P&L of the last 24 hours).
ledgerEntrySchema.index({ agentId: 1, at: 1 });

type LedgerEntryPaths = InferSchemaType<typeof ledgerEntrySchema>;

/** The `agent` path: changes to the agent document's counters. */
export type AgentDelta = NonNullable<LedgerEntryPaths['agent']>;

/** The `position` subdocument: changes to one position. */
export type PositionDelta = Override<
  Required<NonNullable<LedgerEntryPaths['position']>>,
  {
    // Shorthand paths with no default, always written; the two unions have no enum in the schema.
    positionId: string;
    marketId: string;
    venue: VenueId;
    statusAfter: PositionStatus | null;
  }
>;

/** The amounts a position delta moves (its numeric fields). */
export type PositionAmount = {
  [K in keyof PositionDelta]: PositionDelta[K] extends number ? K : never;
}[keyof PositionDelta];

/**
 * Zero of every counter an entry changes, typed complete: a field added to a delta fails to compile
 * here, so the ledger's apply and the audit both pick it up.
 */
export const NO_AGENT_CHANGE: Record<keyof AgentDelta, number> = {
  balanceMicro: 0,
  reservedMicro: 0,
  realizedPnlMicro: 0,
  tradesCount: 0,
  simTradesCount: 0,
  realTradesCount: 0,
  winCount: 0,
  lossCount: 0,
};
export const NO_POSITION_CHANGE: Record<PositionAmount, number> = {
  sharesYesMicro: 0,
  sharesNoMicro: 0,
  costYesMicro: 0,
  costNoMicro: 0,
  reservedYesMicro: 0,
  reservedNoMicro: 0,
  realizedPnlMicro: 0,
  payoutMicro: 0,
};
export const AGENT_DELTA_FIELDS = Object.keys(NO_AGENT_CHANGE) as (keyof AgentDelta)[];
export const POSITION_AMOUNT_FIELDS = Object.keys(NO_POSITION_CHANGE) as PositionAmount[];

// `agent` is a nested path, present on every entry; `position` is typed as above.
export type LedgerEntryRecord = SchemaRecord<
  typeof ledgerEntrySchema,
  { agent: AgentDelta; position: PositionDelta | null; refusal?: Refusal }
>;
export type LedgerEntryModel = Model<LedgerEntryRecord>;

export function ledgerEntryModel(conn: Connection): LedgerEntryModel {
  return (
    (conn.models.LedgerEntry as LedgerEntryModel | undefined) ??
    conn.model<LedgerEntryRecord>('LedgerEntry', ledgerEntrySchema)
  );
}
