import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';
import { venueIdPath, type VenueId } from '../venues/venue-id.js';

/**
 * `active` is watched by the evaluation; `triggered` has crossed its threshold and its exit is
 * being carried out (a sell, or a risk alert for a wallet the service does not sign for); `done` is
 * finished (listed no more); `deleted` is the tombstone of a monitor the agent removed (listed no
 * more, never evaluated; `deletedAt` says when, see monitors.ts for why it is kept). A new monitor
 * on the same position side starts a new `generation`.
 */
export const MONITOR_STATES = ['active', 'triggered', 'done', 'deleted'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];
export type ExitReason = 'stop_loss' | 'take_profit';

/**
 * A stop-loss / take-profit monitor on one side of one position (client-contract §7.2), id
 * `<agent>:<market>:<venue>:<side>`. The trigger is written by one guarded update (`{_id, state:
 * 'active', generation}`), so overlapping evaluations trigger it once; the exit carries the
 * idempotency key `risk-monitor-<id>-<generation>` into the trade pipeline and the shares fixed at
 * the trigger, so a retried exit (a worker died) places the same sell at most once.
 */
const positionMonitorSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    marketId: { type: String, required: true },
    venue: venueIdPath,
    side: { type: String, enum: ['yes', 'no'], required: true },
    stopLossPct: { type: Number, default: null },
    takeProfitPct: { type: Number, default: null },
    /** `auto`: created by a buy with auto_risk_monitor_enabled; `manual`: set by the agent. */
    origin: { type: String, enum: ['auto', 'manual'], required: true },
    state: { type: String, enum: MONITOR_STATES, required: true },
    generation: { type: Number, required: true, default: 1 },
    exitReason: { type: String, enum: ['stop_loss', 'take_profit'], default: null },
    triggeredAt: { type: Date, default: null },
    /** The side's price and the position's P&L (fraction of cost) when it triggered. */
    triggerPrice: { type: Number, default: null },
    triggerPnlPct: { type: Number, default: null },
    /** Shares to sell, fixed at the trigger: a retried exit sends the very same request. */
    exitSharesMicro: { type: Number, default: null },
    /** How the exit ended: `sold`, `alerted` (external wallet), or `refused` (with `exitError`). */
    exitOutcome: { type: String, enum: ['sold', 'alerted', 'refused'], default: null },
    exitTradeId: { type: String, default: null },
    exitError: { type: String, default: null },
    /**
     * When the agent removed it (`state: deleted`), on the clock trades' `createdAt` is written
     * with; null on every other state. Read only together with `_id`, so no index of its own.
     */
    deletedAt: { type: Date, default: null },
  },
  { collection: 'position_monitors', timestamps: true, versionKey: false },
);
positionMonitorSchema.index({ state: 1, _id: 1 });
positionMonitorSchema.index({ agentId: 1, state: 1 });

export type PositionMonitorRecord = SchemaRecord<
  typeof positionMonitorSchema,
  {
    venue: VenueId;
    side: 'yes' | 'no';
    state: MonitorState;
    origin: 'auto' | 'manual';
    stopLossPct: number | null;
    takeProfitPct: number | null;
    exitReason: ExitReason | null;
    triggeredAt: Date | null;
    triggerPrice: number | null;
    triggerPnlPct: number | null;
    exitSharesMicro: number | null;
    exitOutcome: 'sold' | 'alerted' | 'refused' | null;
    exitTradeId: string | null;
    exitError: string | null;
    deletedAt: Date | null;
    createdAt: Date;
    updatedAt: Date;
  }
>;
export type PositionMonitorModel = Model<PositionMonitorRecord>;

export const monitorId = (agentId: string, marketId: string, venue: string, side: string) =>
  `${agentId}:${marketId}:${venue}:${side}`;

export function positionMonitorModel(conn: Connection): PositionMonitorModel {
  return (
    (conn.models.PositionMonitor as PositionMonitorModel | undefined) ??
    conn.model<PositionMonitorRecord>('PositionMonitor', positionMonitorSchema)
  );
}
