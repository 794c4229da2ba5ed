import type { AgentModel, AgentRecord } from '../agents/agent.model.js';
import type { PositionModel, PositionRecord } from '../positions/position.model.js';
import { afterWrite } from '../../infra/faults.js';
import { isDuplicateKey, type Decision, type Refusal } from '../refusal.js';
import { appendToStream, rollForwardStream, type SequencedLog } from '../sequenced-log/sequenced-log.js';
import {
  AGENT_DELTA_FIELDS,
  POSITION_AMOUNT_FIELDS,
  type AgentDelta,
  type LedgerEntryModel,
  type LedgerEntryRecord,
  type PositionDelta,
} from './ledger-entry.model.js';
import type { VenueId } from '../venues/venue-id.js';
import type { UpdateDoc } from '../../util/apply-update.js';

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
  /** A release's reason: the refusal that sent the reservation back. */
  refusal?: Refusal;
}

const AGENT_FIELDS = AGENT_DELTA_FIELDS;
const POSITION_FIELDS = POSITION_AMOUNT_FIELDS;

const nonZero = (obj: Record<string, number>) =>
  Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== 0));

/** The position document an entry creates when it is the first to touch that position. */
export function positionFromEntry(entry: LedgerEntryRecord): PositionRecord {
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
    holderAddress: p.holder ?? null,
    appliedSeq: entry.seq,
    openedAt: entry.at,
    lastTradeAt: p.sharesYesMicro || p.sharesNoMicro ? entry.at : null,
    settledAt: p.statusAfter === 'settled' ? entry.at : null,
  };
}

/** The update that applies `entry` to the existing position it names (guarded by the caller). */
export function positionUpdate(entry: LedgerEntryRecord): UpdateDoc {
  const p = entry.position!;
  const inc = nonZero(Object.fromEntries(POSITION_FIELDS.map((f) => [f, p[f] ?? 0])));
  const set: Record<string, unknown> = { appliedSeq: entry.seq };
  if (p.statusAfter) set.status = p.statusAfter;
  if (p.statusAfter === 'settled') set.settledAt = entry.at;
  if (p.holder) set.holderAddress = p.holder;
  if (p.sharesYesMicro || p.sharesNoMicro) set.lastTradeAt = entry.at;
  const update: UpdateDoc = { $set: set };
  if (Object.keys(inc).length) update.$inc = inc;
  if (p.source) update.$addToSet = { sources: p.source };
  return update;
}

/**
 * Applies one entry to the position it names; a no-op when already applied. `known` is the position
 * as the entry was decided on (null: there was none), so the guard is its exact `appliedSeq`, a
 * filter every database serves from an index; undefined (a roll-forward) means "find out".
 */
async function applyToPosition(
  models: LedgerModels,
  entry: LedgerEntryRecord,
  known?: PositionRecord | null,
) {
  const p = entry.position!;
  if (known) {
    // No match: another worker rolling this entry forward applied it first.
    const result = await models.Position.updateOne(
      { _id: p.positionId, appliedSeq: known.appliedSeq },
      positionUpdate(entry),
    );
    afterWrite(result.matchedCount > 0);
    return;
  }
  if (known === undefined) {
    const result = await models.Position.updateOne(
      { _id: p.positionId, appliedSeq: { $lt: entry.seq } },
      positionUpdate(entry),
    );
    afterWrite(result.matchedCount > 0);
    if (result.matchedCount > 0) return;
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

/** The update that applies `entry` to its agent (guarded by the caller with `ledgerSeq: seq - 1`). */
export function agentUpdate(entry: LedgerEntryRecord): UpdateDoc {
  const set: Record<string, unknown> = { ledgerSeq: entry.seq };
  if (entry.statusAfter) set.status = entry.statusAfter;
  if (entry.agent.tradesCount) set.lastTradeAt = entry.at;
  const inc = nonZero(Object.fromEntries(AGENT_FIELDS.map((f) => [f, entry.agent[f] ?? 0])));
  const update: UpdateDoc = { $set: set };
  if (Object.keys(inc).length) update.$inc = inc;
  return update;
}

/** Applies one entry: the position first, then the agent (guarded by its sequence number). */
async function applyEntry(models: LedgerModels, entry: LedgerEntryRecord, position?: PositionRecord | null) {
  if (entry.position) await applyToPosition(models, entry, position);
  const result = await models.Agent.updateOne(
    { _id: entry.agentId, ledgerSeq: entry.seq - 1 },
    agentUpdate(entry),
  );
  afterWrite(result.matchedCount > 0);
}

/** The agent's ledger as a sequenced log: head = the agent document, `ledgerSeq` its sequence. */
const agentLedger = (models: LedgerModels): SequencedLog<AgentRecord, LedgerEntryRecord> => ({
  name: 'agent',
  log: models.LedgerEntry,
  streamField: 'agentId',
  readHead: (id) => models.Agent.findById(id).lean() as Promise<AgentRecord | null>,
  seqOf: (a) => a.ledgerSeq,
  // Positions before the agent, so a position is never behind its agent.
  apply: (e) => applyEntry(models, e),
});

/** Brings the agent and its positions up to date with the ledger (after a crash between an append and its apply). */
export async function rollForwardAgent(models: LedgerModels, agentId: string): Promise<void> {
  await rollForwardStream(agentLedger(models), agentId);
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
 * A fill names its position's holder only when the position held nothing before it: a later fill
 * from another wallet (a resting order, a position recorded before holders were) does not move the
 * whole position there. Decided on the position as of the previous entry, and applied under the
 * `appliedSeq` guard of that state: one atomic single-document update.
 */
function holderOnlyWhenEmpty(draft: EntryDraft, position: PositionRecord | null): EntryDraft {
  if (!draft.position?.holder || !position) return draft;
  const held =
    position.sharesYesMicro + position.sharesNoMicro + position.reservedYesMicro + position.reservedNoMicro;
  return held === 0 ? draft : { ...draft, position: { ...draft.position, holder: null } };
}

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
  let positionRead: PositionRecord | null | undefined;
  const result = await appendToStream<AgentRecord, LedgerEntryRecord, LedgerSnapshot>(
    agentLedger(models),
    agentId,
    entryId,
    async (agent) => {
      const position = target ? await models.Position.findById(target.positionId).lean() : null;
      // A position ahead of its agent means another worker is half-way through an apply: read again.
      if (position && position.appliedSeq > agent.ledgerSeq) return { retry: true };
      positionRead = position;
      const decision = decide({ agent, position });
      if (!decision.ok) return { ok: false, refusal: decision.refusal };
      return {
        ok: true,
        event: entryFor(entryId, agent, holderOnlyWhenEmpty(decision.value, position), target, now()),
        extra: { agent, position },
      };
    },
    (entry) => applyEntry(models, entry, positionRead),
  );
  if (!result.event) return { refusal: result.refusal! };
  return { entry: result.event, ...(result.extra ? { before: result.extra } : {}) };
}

/** The entry `draft` makes on `agent`: deltas completed, balance checked, status decided. */
export function entryFor(
  entryId: string,
  agent: AgentRecord,
  draft: EntryDraft,
  target: { marketId: string; venue: VenueId; positionId: string } | null,
  at: Date,
): Omit<LedgerEntryRecord, '_id' | 'seq'> {
  const agentId = agent._id;
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
  return {
    agentId,
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
            holder: null,
            ...draft.position,
            ...target,
          } as PositionDelta)
        : null,
    ...(draft.refusal ? { refusal: draft.refusal } : {}),
    at,
  };
}
