import { Schema, type Connection, type HydratedDocument, type Model } from 'mongoose';
import { STARTING_BALANCE_MICRO } from '../money.js';
import type { SchemaRecord } from '../schema-record.js';

export const AGENT_STATUSES = ['unclaimed', 'claimed', 'broke', 'suspended'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

const agentSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    /** The name's lookalike key (agent-name.ts): the first agent to hold one shows its name plain on the boards. */
    nameKey: { type: String, default: null },
    /**
     * When the agent took a name under its current key (registration, or a rename to a name that
     * does not look like its last one): the earliest holder of a key keeps its name plain, so an old
     * agent cannot rename itself into a newer agent's name and push it aside. Null for agents from
     * before the field: they count from `createdAt`, and come first.
     */
    nameTakenAt: { type: Date, default: null },
    description: { type: String, default: null },
    homepage: { type: String, default: null },
    skillUrl: { type: String, default: null },
    /** SHA-256 of the API key; the key itself is never stored. */
    apiKeyHash: { type: String, required: true },
    keyPrefix: { type: String, required: true },
    claimCode: { type: String, required: true },
    /** When the claim code was issued (registration or rotation); it expires CLAIM_CODE_TTL_HOURS later. */
    claimCodeIssuedAt: { type: Date, default: null },
    claimedBy: { type: String, default: null },
    claimedAt: { type: Date, default: null },
    status: { type: String, enum: AGENT_STATUSES, required: true, default: 'unclaimed' },
    /** $SIM balance in micro-units; changed only by guarded single-document updates. */
    balanceMicro: { type: Number, required: true, default: STARTING_BALANCE_MICRO },
    startingBalanceMicro: { type: Number, required: true, default: STARTING_BALANCE_MICRO },
    /** Money set aside by buys in flight (balance + reserved is what the agent owns in cash). */
    reservedMicro: { type: Number, required: true, default: 0 },
    realizedPnlMicro: { type: Number, required: true, default: 0 },
    /** Sequence number of the last ledger entry applied to this document (see ledger/ledger.ts). */
    ledgerSeq: { type: Number, required: true, default: 0 },
    /** The `ledgerSeq` the agent's venue tallies were last counted at (reads/venue-tallies.ts). */
    talliedSeq: { type: Number, default: null },
    /** A trade of the agent's was in flight at that count: the next re-mark counts it again. */
    talliedInFlight: { type: Boolean, default: null },
    simTradesCount: { type: Number, required: true, default: 0 },
    /** Realised P&L plus open positions marked at the last leaderboard re-mark, as ranked (see reads/leaderboard.ts). */
    leaderboardPnlMicro: { type: Number, required: true, default: 0 },
    /** P&L left off the boards: markets traded together with a linked agent (reads/linked-agents.ts). */
    linkedPnlMicro: { type: Number, required: true, default: 0 },
    /** A digest of the client address the agent registered from: agents of one address are linked on the boards. */
    registeredFrom: { type: String, default: null },
    markedAt: { type: Date, default: null },
    realTradesCount: { type: Number, required: true, default: 0 },
    tradesCount: { type: Number, required: true, default: 0 },
    winCount: { type: Number, required: true, default: 0 },
    lossCount: { type: Number, required: true, default: 0 },
    lastTradeAt: { type: Date, default: null },
    autoRedeemEnabled: { type: Boolean, required: true, default: true },
    /**
     * The skills the agent's trades named (`skill_slug`), so the briefing's recommendations read no
     * trades. Absent on agents from before it: skills/skills.ts counts those from their trades once.
     */
    skillSlugs: { type: [String], default: undefined },
  },
  { collection: 'agents', timestamps: true, versionKey: false },
);
agentSchema.index({ apiKeyHash: 1 }, { unique: true });
agentSchema.index({ claimCode: 1 }, { unique: true });
agentSchema.index({ claimedBy: 1, status: 1 });
agentSchema.index({ nameKey: 1, nameTakenAt: 1, createdAt: 1, _id: 1 });
// The sim leaderboard page: agents that traded on sim, best P&L first (real venues rank in venue_standings).
agentSchema.index({ simTradesCount: 1, leaderboardPnlMicro: -1, _id: 1 });

export type AgentRecord = SchemaRecord<typeof agentSchema>;
export type AgentDoc = HydratedDocument<AgentRecord>;
export type AgentModel = Model<AgentRecord>;

/**
 * Released by its human (`POST /api/sdk/agents/{id}/release`): suspended, its claim kept so that the
 * human still lists it and may reactivate it.
 */
export const isReleased = (agent: Pick<AgentRecord, 'status'>) => agent.status === 'suspended';

/**
 * The user whose account an agent acts for — the one place that decides it: its human's, from the
 * claim until they release it. A released agent acts for no account: its key is answered as a
 * never-claimed agent's, about the agent alone, never with its former owner's settings, wallets,
 * cash, relayed transactions or other agents (users/settings-owner.ts, reads/fleet.ts and the
 * wallet calls all ask here).
 */
export const actingUserOf = (agent: Pick<AgentRecord, 'claimedBy' | 'status'>): string | null =>
  isReleased(agent) ? null : (agent.claimedBy ?? null);

export function agentModel(conn: Connection): AgentModel {
  return (conn.models.Agent as AgentModel | undefined) ?? conn.model<AgentRecord>('Agent', agentSchema);
}
