import type { AgentModel, AgentRecord } from '../agents/agent.model.js';
import type { PositionModel, PositionRecord } from '../positions/position.model.js';
import { afterWrite } from '../../infra/faults.js';
import { isDuplicateKey, type Decision, type Refusal } from '../refusal.js';
import type { AgentDelta, LedgerEntryModel, LedgerEntryRecord, PositionDelta } from './ledger-entry.model.js';

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

async function ensurePosition(models: LedgerModels, agentId: string, p: PositionDelta, at: Date) {
  try {
    await models.Position.updateOne(
      { _id: p.positionId },
      { $setOnInsert: { agentId, marketId: p.marketId, venue: p.venue, openedAt: at } },
      { upsert: true },
    );
    afterWrite();
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // a concurrent upsert created it
  }
}

/** Applies one entry to the position it names; a no-op when already applied. */
async function applyToPosition(models: LedgerModels, entry: LedgerEntryRecord) {
  const p = entry.position!;
  await ensurePosition(models, entry.agentId, p, entry.at);
  const inc = nonZero(Object.fromEntries(POSITION_FIELDS.map((f) => [f, p[f] ?? 0])));
  const set: Record<string, unknown> = { appliedSeq: entry.seq };
  if (p.statusAfter) set.status = p.statusAfter;
  if (p.statusAfter === 'settled') set.settledAt = entry.at;
  if (p.sharesYesMicro || p.sharesNoMicro) set.lastTradeAt = entry.at;
  const update: Record<string, unknown> = { $set: set };
  if (Object.keys(inc).length) update.$inc = inc;
  if (p.source) update.$addToSet = { sources: p.source };
  await models.Position.updateOne({ _id: p.positionId, appliedSeq: { $lt: entry.seq } }, update);
  afterWrite();
}

/**
 * Applies every logged entry the agent (and its positions) have not seen yet, in order. Safe from any
 * number of workers at once: positions are guarded by `appliedSeq`, the agent by `ledgerSeq`, and a
 * position is always updated before the agent moves past the entry.
 */
export async function rollForwardAgent(models: LedgerModels, agentId: string): Promise<void> {
  for (;;) {
    const agent = await models.Agent.findById(agentId, { ledgerSeq: 1 }).lean();
    if (!agent) return;
    const next = await models.LedgerEntry.findOne({ agentId, seq: agent.ledgerSeq + 1 }).lean();
    if (!next) return;
    if (next.position) await applyToPosition(models, next);
    const set: Record<string, unknown> = { ledgerSeq: next.seq };
    if (next.statusAfter) set.status = next.statusAfter;
    if (next.agent.tradesCount) set.lastTradeAt = next.at;
    const inc = nonZero(Object.fromEntries(AGENT_FIELDS.map((f) => [f, next.agent[f] ?? 0])));
    const update: Record<string, unknown> = { $set: set };
    if (Object.keys(inc).length) update.$inc = inc;
    await models.Agent.updateOne({ _id: agentId, ledgerSeq: next.seq - 1 }, update);
    afterWrite();
  }
}

export type LedgerResult =
  { entry: LedgerEntryRecord; refusal?: undefined } | { entry?: undefined; refusal: Refusal };

/**
 * Appends entry `entryId` to the agent's ledger, deciding it from the agent and position exactly as of
 * the previous entry, then applies it. An id logged before is returned as it was (a retry never
 * applies twice); a refusal from `decide` logs nothing.
 */
export async function appendLedgerEntry(
  models: LedgerModels,
  agentId: string,
  entryId: string,
  target: { marketId: string; venue: 'sim' | 'polymarket' | 'kalshi'; positionId: string } | null,
  decide: (snapshot: LedgerSnapshot) => Decision<EntryDraft>,
  now: () => Date,
): Promise<LedgerResult> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const existing = await models.LedgerEntry.findById(entryId).lean();
    if (existing) {
      await rollForwardAgent(models, agentId);
      return { entry: existing };
    }
    await rollForwardAgent(models, agentId);
    const agent = await models.Agent.findById(agentId).lean();
    if (!agent) throw new Error(`agent ${agentId} vanished`);
    const position = target ? await models.Position.findById(target.positionId).lean() : null;
    // A position ahead of its agent means a roll-forward is half-way; read again once it is done.
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
      await models.LedgerEntry.create(entry);
      afterWrite();
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 1 + attempt)));
      continue;
    }
    await rollForwardAgent(models, agentId);
    return { entry };
  }
  throw new Error(`could not append to the ledger of agent ${agentId}: too much contention`);
}
