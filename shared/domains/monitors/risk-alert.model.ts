import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';
import { venueIdPath, type VenueId } from '../venues/venue-id.js';
import type { ExitReason } from './position-monitor.model.js';

/**
 * A triggered monitor on a position the service cannot sell (an external wallet signs its orders),
 * or whose sell by the service was refused (`exitRefused`, e.g. a cooldown):
 * the agent's client reads it (`GET /api/sdk/risk-alerts`, client-contract §7.1), sells itself and
 * deletes it. Id `<agent>:<market>:<side>` (the client deletes by market and side); it lapses after
 * an hour (`expiresAt`, a TTL index, and every read filters on it).
 */
const riskAlertSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    marketId: { type: String, required: true },
    venue: venueIdPath,
    side: { type: String, enum: ['yes', 'no'], required: true },
    sharesMicro: { type: Number, required: true },
    exitReason: { type: String, enum: ['stop_loss', 'take_profit'], required: true },
    tokenId: { type: String, default: null },
    triggerPrice: { type: Number, default: null },
    /** Set when the service sold itself and the sell was refused: the refusal's error code. */
    exitRefused: { type: String, default: null },
    /** The monitor (and its generation) that raised it: raising it again is the same write. */
    monitorId: { type: String, required: true },
    generation: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'risk_alerts', timestamps: true, versionKey: false },
);
riskAlertSchema.index({ agentId: 1, expiresAt: 1 });
riskAlertSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export type RiskAlertRecord = SchemaRecord<
  typeof riskAlertSchema,
  {
    venue: VenueId;
    side: 'yes' | 'no';
    exitReason: ExitReason;
    tokenId: string | null;
    exitRefused: string | null;
    createdAt: Date;
  }
>;
export type RiskAlertModel = Model<RiskAlertRecord>;

export const riskAlertId = (agentId: string, marketId: string, side: string) =>
  `${agentId}:${marketId}:${side}`;

export function riskAlertModel(conn: Connection): RiskAlertModel {
  return (
    (conn.models.RiskAlert as RiskAlertModel | undefined) ??
    conn.model<RiskAlertRecord>('RiskAlert', riskAlertSchema)
  );
}
