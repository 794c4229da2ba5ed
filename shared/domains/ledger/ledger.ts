import type { AgentModel, AgentRecord } from '../agents/agent.model.js';
import type { PositionModel, PositionRecord } from '../positions/position.model.js';
import { afterWrite } from '../../infra/faults.js';
import { isDuplicateKey, type Decision, type Refusal } from '../refusal.js';
import type { AgentDelta, LedgerEntryModel, LedgerEntryRecord, PositionDelta } from './ledger-entry.model.js';
import type { VenueId } from '../venues/venue-id.js';

export interface LedgerModels {
  Agent: AgentModel;
  Position: PositionModel;
  LedgerEntry: LedgerEntryModel;
}

export interface LedgerSnapshot {
  agent: AgentRecord;
  /** The position the entry touches, exactly as of the agent's last applied entry (null if none yet). */
  position: PositionRecord | null;
}

export interface EntryDraft {
  kind: string;
  tradeId?: string | null;
  agent?: Partial<AgentDelta>;
  position?: Partial<Omit<PositionDelta, 'positionId' | 'marketId' | 'venue'>>;
  /** Force an agent status; by default an agent whose cash reaches zero becomes `broke`. */
  statusAfter?: string | null;
}

const AGENT_FIELDS: (keyof AgentDelta)[] = [
  'balanceMicro',
  'reservedMicro',
  'realizedPnlMicro',
  'tradesCount',
  'simTradesCount',
  'winCount',
  'lossCount',
];
const POSITION_FIELDS = [
  'sharesYesMicro',
  'sharesNoMicro',
  'costYesMicro',
  'costNoMicro',
  'reservedYesMicro',
  'reservedNoMicro',
  'realizedPnlMicro',
  'payoutMicro',
] as const;

const nonZero = (obj: Record<string, number>) =>
  Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== 0));

/** The position document an entry creates when it is the first to touch that position. */
function positionFromEntry(entry: LedgerEntryRecord): PositionRecord {
  const p = entry.position!;
  return {
    _id: p.positionId,
    agentId: entry.agentId,
    marketId: p.marketId,
    venue: p.venue,
    sharesYesMicro: p.sharesYesMicro,
    sharesNoMicro: p.sharesNoMicro,
    costYesMicro: p.costYesMicro,
    costNoMicro: p.costNoMicro,
    reservedYesMicro: p.reservedYesMicro,
    reservedNoMicro: p.reservedNoMicro,
    realizedPnlMicro: p.realizedPnlMicro,
    payoutMicro: p.payoutMicro,
    status: p.statusAfter ?? 'open',
    sources: p.source ? [p.source] : [],
    appliedSeq: entry.seq,
    openedAt: entry.at,
    lastTradeAt: p.sharesYesMicro || p.sharesNoMicro ? entry.at : null,
    settledAt: p.statusAfter === 'settled' ? entry.at : null,
  };
}

/**
 * Applies one entry to the position it names; a no-op when already applied (`appliedSeq` guard).
 * `exists` is what the caller already knows (skips a round trip); undefined means "find out".
 */
async function applyToPosition(models: LedgerModels, entry: LedgerEntryRecord, exists?: boolean) {
  const p = entry.position!;
  if (exists !== false) {
    const inc = nonZero(Object.fromEntries(POSITION_FIELDS.map((f) => [f, p[f] ?? 0])));
    const set: Record<string, unknown> = { appliedSeq: entry.seq };
    if (p.statusAfter) set.status = p.statusAfter;
    if (p.statusAfter === 'settled') set.settledAt = entry.at;
    if (p.sharesYesMicro || p.sharesNoMicro) set.lastTradeAt = entry.at;
    const update: Record<string, unknown> = { $set: set };
    if (Object.keys(inc).length) update.$inc = inc;
    if (p.source) update.$addToSet = { sources: p.source };
    const result = await models.Position.updateOne(
      { _id: p.positionId, appliedSeq: { $lt: entry.seq } },
      update,
    );
    afterWrite(result.matchedCount > 0);
    if (result.matchedCount > 0 || exists === true) return;
    if (await models.Position.exists({ _id: p.positionId })) return; // already applied
  }
  try {
    await models.Position.create(positionFromEntry(entry));
    afterWrite();
  } catch (err) {
    // Created meanwhile by another worker rolling this same entry forward.
    if (!isDuplicateKey(err)) throw err;
  }
}

/** Applies one entry: the position first, then the agent (guarded by its sequence number). */
async function applyEntry(models: LedgerModels, entry: LedgerEntryRecord, positionExists?: boolean) {
  if (entry.position) await applyToPosition(models, entry, positionExists);
  const set: Record<string, unknown> = { ledgerSeq: entry.seq };
  if (entry.statusAfter) set.status = entry.statusAfter;
  if (entry.agent.tradesCount) set.lastTradeAt = entry.at;
  const inc = nonZero(Object.fromEntries(AGENT_FIELDS.map((f) => [f, entry.agent[f] ?? 0])));
  const update: Record<string, unknown> = { $set: set };
  if (Object.keys(inc).length) update.$inc = inc;
  const result = await models.Agent.updateOne({ _id: entry.agentId, ledgerSeq: entry.seq - 1 }, update);
  afterWrite(result.matchedCount > 0);
}

/**
 * Reads the agent and, in the same round trip to the ledger, the entries it has not applied yet (and
 * entry `entryId`, if given). Applies the unapplied ones in order, positions before the agent, so a
 * position is never behind its agent. Returns the agent as read and whether it was behind.
 */
async function readAgent(models: LedgerModels, agentId: string, entryId?: string) {
  const agent = await models.Agent.findById(agentId).lean();
  if (!agent) throw new Error(`agent ${agentId} not found`);
  const conditions: Record<string, unknown>[] = [{ agentId, seq: { $gt: agent.ledgerSeq } }];
  if (entryId) conditions.push({ _id: entryId });
  const entries = await models.LedgerEntry.find({ $or: conditions }).sort({ seq: 1 }).lean();
  const unapplied = entries.filter((e) => e.agentId === agentId && e.seq > agent.ledgerSeq);
  for (const e of unapplied) await applyEntry(models, e);
  return {
    agent,
    behind: unapplied.length > 0,
    mine: entryId ? entries.find((e) => e._id === entryId) : undefined,
  };
}

/** Brings the agent and its positions up to date with the ledger (after a crash between an append and its apply). */
export async function rollForwardAgent(models: LedgerModels, agentId: string): Promise<void> {
  while ((await readAgent(models, agentId)).behind);
}

export type LedgerResult =
  | {
      entry: LedgerEntryRecord;
      refusal?: undefined;
      /** The state the entry was decided on, when this call appended it (absent on a replay). */
      before?: LedgerSnapshot;
    }
  | { entry?: undefined; refusal: Refusal; before?: undefined };

/**
 * Appends entry `entryId` to the agent's ledger, deciding it from the agent and position exactly as of
 * the previous entry, then applies it. An id logged before is returned as it was (a retry never
 * applies twice); a refusal from `decide` logs nothing.
 */
export async function appendLedgerEntry(
  models: LedgerModels,
  agentId: string,
  entryId: string,
  target: { marketId: string; venue: VenueId; positionId: string } | null,
  decide: (snapshot: LedgerSnapshot) => Decision<EntryDraft>,
  now: () => Date,
): Promise<LedgerResult> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const { agent, behind, mine } = await readAgent(models, agentId, entryId);
    if (mine && !behind) return { entry: mine };
    if (behind || mine) continue;
    const position = target ? await models.Position.findById(target.positionId).lean() : null;
    // A position ahead of its agent means another worker is half-way through an apply: read again.
    if (position && position.appliedSeq > agent.ledgerSeq) continue;
    const decision = decide({ agent, position });
    if (!decision.ok) return { refusal: decision.refusal };
    const draft = decision.value;
    const delta: AgentDelta = {
      ...Object.fromEntries(AGENT_FIELDS.map((f) => [f, 0])),
      ...draft.agent,
    } as AgentDelta;
    const balanceAfterMicro = agent.balanceMicro + delta.balanceMicro;
    const reservedAfter = agent.reservedMicro + delta.reservedMicro;
    if (balanceAfterMicro < 0 || reservedAfter < 0)
      throw new Error(`ledger entry ${entryId} would make agent ${agentId} negative`);
    // Cash at zero makes an agent broke (spec §3); a sale or payout that brings cash back restores it.
    const becomesBroke =
      balanceAfterMicro === 0 &&
      reservedAfter === 0 &&
      agent.status !== 'suspended' &&
      agent.status !== 'broke';
    const recovers = agent.status === 'broke' && balanceAfterMicro > 0;
    const statusAfter =
      draft.statusAfter ??
      (becomesBroke ? 'broke' : recovers ? (agent.claimedBy ? 'claimed' : 'unclaimed') : null);
    const entry: LedgerEntryRecord = {
      _id: entryId,
      agentId,
      seq: agent.ledgerSeq + 1,
      kind: draft.kind,
      tradeId: draft.tradeId ?? null,
      agent: delta,
      balanceAfterMicro,
      simTradesAfter: agent.simTradesCount + delta.simTradesCount,
      statusAfter,
      position:
        target && draft.position
          ? ({
              ...Object.fromEntries(POSITION_FIELDS.map((f) => [f, 0])),
              realizedPnlMicro: 0,
              statusAfter: null,
              source: null,
              ...draft.position,
              ...target,
            } as PositionDelta)
          : null,
      at: now(),
    };
    try {
      // The native insert: the entry is fully built and typed, so mongoose's document machinery only costs CPU.
      await models.LedgerEntry.collection.insertOne(entry as never);
      afterWrite();
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 1 + attempt)));
      continue;
    }
    await applyEntry(models, entry, position !== null);
    return { entry, before: { agent, position } };
  }
  throw new Error(`could not append to the ledger of agent ${agentId}: too much contention`);
}
