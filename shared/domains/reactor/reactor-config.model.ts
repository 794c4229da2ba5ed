import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * One watched wallet of an agent's Reactor config. `wallets` (what the copytrading skill reads and
 * sets) and `watchlist` (what the reactor MCP client reads) are two views of this one list: the
 * wallets are the enabled entries' (reactor-config.ts says how a change of either lands here).
 */
const watchEntrySchema = new Schema(
  {
    /** An EVM address in lower case. */
    wallet: { type: String, required: true },
    label: { type: String, default: null },
    /** The MCP client runs its reactive skill by itself on this wallet's events. */
    autoCopy: { type: Boolean, required: true, default: false },
    enabled: { type: Boolean, required: true, default: true },
    /** This wallet's own size filter in micro-shares, on top of the config's. */
    minSharesMicro: { type: Number, required: true, default: 0 },
  },
  { _id: false },
);

/**
 * An agent's Reactor config (`_id` = the agent id): whom it watches and how a watched wallet's fill
 * becomes a mirror signal. Sizes in micro-shares, the daily cap in micro venue units. `watched` is
 * the enabled entries' wallets, kept with every write for the watcher index (watcher-index.ts);
 * `version` guards read-modify-write updates.
 */
const reactorConfigSchema = new Schema(
  {
    _id: { type: String, required: true },
    watchlist: { type: [watchEntrySchema], default: [] },
    watched: { type: [String], default: [] },
    minSharesMicro: { type: Number, required: true },
    maxSharesMicro: { type: Number, required: true },
    mirrorFraction: { type: Number, required: true },
    dailyCapMicro: { type: Number, required: true },
    venue: { type: String, required: true },
    enabled: { type: Boolean, required: true },
    priceBuffer: { type: Number, required: true },
    version: { type: Number, required: true, default: 0 },
  },
  { collection: 'reactor_configs', timestamps: true, versionKey: false },
);
reactorConfigSchema.index({ enabled: 1 });

export type ReactorWatchEntry = SchemaRecord<typeof watchEntrySchema, { label: string | null }>;
export type ReactorConfigRecord = SchemaRecord<
  typeof reactorConfigSchema,
  { watchlist: ReactorWatchEntry[] }
>;
export type ReactorConfigModel = Model<ReactorConfigRecord>;

export function reactorConfigModel(conn: Connection): ReactorConfigModel {
  return (
    (conn.models.ReactorConfig as ReactorConfigModel | undefined) ??
    conn.model<ReactorConfigRecord>('ReactorConfig', reactorConfigSchema)
  );
}
