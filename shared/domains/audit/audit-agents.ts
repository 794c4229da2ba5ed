import type { AgentRecord } from '../agents/agent.model.js';
import {
  AGENT_DELTA_FIELDS,
  NO_AGENT_CHANGE,
  NO_POSITION_CHANGE,
  POSITION_AMOUNT_FIELDS,
  type AgentDelta,
  type LedgerEntryRecord,
  type PositionAmount,
} from '../ledger/ledger-entry.model.js';
import { STARTING_BALANCE_MICRO } from '../money.js';
import type { PositionRecord } from '../positions/position.model.js';
import { entryOf, Findings, groupBy, idRange } from './audit-findings.js';
import type { AuditModels, Auditor, BatchAudit } from './audit-findings.js';

type PositionField = PositionAmount;
type AgentField = keyof AgentDelta;
type Sums<F extends string> = Record<F, number>;
const AGENT_SUMS = AGENT_DELTA_FIELDS;
const POSITION_SUMS = POSITION_AMOUNT_FIELDS;

/**
 * One `$group` row: the entries of one agent that touch one position (or none), of one kind, taking
 * the position to one status (or none). Keying by status gives each position's last status without
 * sorting: the status of the row with the highest `lastSeq`.
 */
type EntryGroup = {
  _id: { agentId: string; positionId?: string | null; kind: string; status?: string | null };
  entries: number;
  firstSeq: number;
  lastSeq: number;
} & Record<`a_${AgentField}` | `p_${PositionField}`, number>;

/** What one position's entries add up to. */
interface PositionLog {
  entries: number;
  firstSeq: number;
  lastSeq: number;
  sums: Sums<PositionField>;
  status: string | null;
  statusSeq: number;
}

/** What one agent's whole ledger adds up to. */
interface AgentLog {
  entries: number;
  lastSeq: number;
  sums: Sums<AgentField>;
  /** Paid for shares (the cost the buys added to positions), received for sales, paid out at settlement. */
  spentMicro: number;
  proceedsMicro: number;
  payoutsMicro: number;
  positions: Map<string, PositionLog>;
}

const emptyAgentLog = (): AgentLog => ({
  entries: 0,
  lastSeq: 0,
  sums: { ...NO_AGENT_CHANGE },
  spentMicro: 0,
  proceedsMicro: 0,
  payoutsMicro: 0,
  positions: new Map(),
});

type AuditedAgent = Pick<AgentRecord, '_id' | 'ledgerSeq' | AgentField>;

/** One aggregation over the ledger entries of the batch's agents: O(entries), grouped in the database. */
async function readLedgers(models: AuditModels, agents: AuditedAgent[]): Promise<Map<string, AgentLog>> {
  const groups = await models.LedgerEntry.aggregate<EntryGroup>([
    { $match: { agentId: idRange(agents) } },
    {
      $group: {
        _id: {
          agentId: '$agentId',
          positionId: '$position.positionId',
          kind: '$kind',
          status: '$position.statusAfter',
        },
        entries: { $sum: 1 },
        firstSeq: { $min: '$seq' },
        lastSeq: { $max: '$seq' },
        ...Object.fromEntries(AGENT_SUMS.map((f) => [`a_${f}`, { $sum: `$agent.${f}` }])),
        ...Object.fromEntries(POSITION_SUMS.map((f) => [`p_${f}`, { $sum: `$position.${f}` }])),
      },
    },
  ]);
  const logs = new Map<string, AgentLog>();
  for (const g of groups) {
    const log = entryOf(logs, g._id.agentId, emptyAgentLog);
    log.entries += g.entries;
    log.lastSeq = Math.max(log.lastSeq, g.lastSeq);
    for (const f of AGENT_SUMS) log.sums[f] += g[`a_${f}`];
    if (g._id.kind === 'buy') log.spentMicro += g.p_costYesMicro + g.p_costNoMicro;
    if (g._id.kind === 'sell') log.proceedsMicro += g.a_balanceMicro;
    // A venue redemption pays pUSD into the wallet, not $SIM: only sim settlements move the balance.
    if (g._id.kind === 'settle') log.payoutsMicro += g.p_payoutMicro;
    const positionId = g._id.positionId;
    if (!positionId) continue;
    const p = entryOf(log.positions, positionId, () => ({
      entries: 0,
      firstSeq: Infinity,
      lastSeq: 0,
      sums: { ...NO_POSITION_CHANGE },
      status: null,
      statusSeq: 0,
    }));
    p.entries += g.entries;
    p.firstSeq = Math.min(p.firstSeq, g.firstSeq);
    p.lastSeq = Math.max(p.lastSeq, g.lastSeq);
    for (const f of POSITION_SUMS) p.sums[f] += g[`p_${f}`];
    if (g._id.status && g.lastSeq > p.statusSeq) {
      p.status = g._id.status;
      p.statusSeq = g.lastSeq;
    }
  }
  return logs;
}

/**
 * The entries a projection has not applied yet (normally none): those after the agent's `ledgerSeq`,
 * or after a position's `appliedSeq` when that is earlier. One query for the whole batch.
 */
async function readUnapplied(
  models: AuditModels,
  agents: AuditedAgent[],
  logs: Map<string, AgentLog>,
  positions: PositionRecord[],
): Promise<LedgerEntryRecord[]> {
  const cutoff = new Map<string, number>();
  for (const a of agents) if (a.ledgerSeq < (logs.get(a._id)?.lastSeq ?? 0)) cutoff.set(a._id, a.ledgerSeq);
  for (const p of positions) {
    const log = logs.get(p.agentId)?.positions.get(p._id);
    if (log && p.appliedSeq < log.lastSeq)
      cutoff.set(p.agentId, Math.min(cutoff.get(p.agentId) ?? Infinity, p.appliedSeq));
  }
  if (cutoff.size === 0) return [];
  const or = [...cutoff].map(([agentId, seq]) => ({ agentId, seq: { $gt: seq } }));
  return models.LedgerEntry.find({ $or: or }).lean<LedgerEntryRecord[]>();
}

function auditAgent(findings: Findings, agent: AuditedAgent, log: AgentLog, unapplied: LedgerEntryRecord[]) {
  const id = agent._id;
  const differ = (field: string, expected: number, actual: number) =>
    findings.compare(id, { kind: 'agent', id, field, expected, actual });
  differ('entries', log.lastSeq, log.entries);
  if (agent.ledgerSeq > log.lastSeq) differ('ledgerSeq', log.lastSeq, agent.ledgerSeq);
  // The projection against its ledger up to the last entry it applied.
  const expected = { ...log.sums, balanceMicro: STARTING_BALANCE_MICRO + log.sums.balanceMicro };
  for (const e of unapplied)
    if (e.seq > agent.ledgerSeq) for (const f of AGENT_SUMS) expected[f] -= e.agent[f] ?? 0;
  for (const f of AGENT_SUMS) differ(f, expected[f], agent[f]);
  // Conservation: cash (balance + reserved) is what the agent started with, plus sales and payouts,
  // minus what its buys paid; reservations only move money between the two.
  differ(
    'conservation',
    STARTING_BALANCE_MICRO + log.proceedsMicro - log.spentMicro + log.payoutsMicro,
    STARTING_BALANCE_MICRO + log.sums.balanceMicro + log.sums.reservedMicro,
  );
}

function auditPosition(
  findings: Findings,
  agent: AuditedAgent,
  position: PositionRecord,
  log: PositionLog | undefined,
  unapplied: LedgerEntryRecord[],
) {
  const id = position._id;
  const differ = (field: string, expected: number | string | null, actual: number | string | null) =>
    findings.compare(agent._id, { kind: 'position', id, field, expected, actual });
  if (!log) return differ('document', 'absent', 'present');
  // An entry the agent applied was applied to its position first: a position behind it lost one.
  if (position.appliedSeq > log.lastSeq || agent.ledgerSeq >= log.lastSeq)
    differ('appliedSeq', log.lastSeq, position.appliedSeq);
  const expected = { ...log.sums };
  let status: string | null = log.status ?? 'open';
  for (const e of unapplied) {
    if (e.seq <= position.appliedSeq || e.position?.positionId !== id) continue;
    for (const f of POSITION_SUMS) expected[f] -= e.position[f] ?? 0;
    // Its status as of `appliedSeq` is not known from the groups: compared once applied.
    if (e.position.statusAfter) status = null;
  }
  for (const f of POSITION_SUMS) differ(f, expected[f], position[f]);
  if (status !== null) differ('status', status, position.status);
}

/**
 * Audits a batch of agents: each agent's counters against the sum of its ledger entries up to its
 * `ledgerSeq`, its cash against the conservation rule, and each of its positions against the entries
 * that name it up to its `appliedSeq`. Queries per batch: their positions, one aggregation of their
 * entries, and (only when a projection is behind) the entries it has not applied.
 */
async function auditAgentBatch(models: AuditModels, agents: AuditedAgent[]): Promise<BatchAudit> {
  const findings = new Findings();
  // Read in the order the writers apply (agent, then positions, then the log): whatever a
  // document has applied is already in the log when the log is read.
  const positions = await models.Position.find({ agentId: idRange(agents) }).lean<PositionRecord[]>();
  const logs = await readLedgers(models, agents);
  const unapplied = await readUnapplied(models, agents, logs, positions);
  const positionsOf = groupBy(positions, (p) => p.agentId);
  const unappliedOf = groupBy(unapplied, (e) => e.agentId);
  let behind = 0;
  let positionsChecked = 0;
  for (const agent of agents) {
    const log = logs.get(agent._id) ?? emptyAgentLog();
    if (agent.ledgerSeq < log.lastSeq) behind++;
    const mine = unappliedOf.get(agent._id) ?? [];
    auditAgent(findings, agent, log, mine);
    const documents = new Set<string>();
    for (const p of positionsOf.get(agent._id) ?? []) {
      positionsChecked++;
      documents.add(p._id);
      auditPosition(findings, agent, p, log.positions.get(p._id), mine);
    }
    // A position the ledger names but no document holds: missing once the agent applied its first entry.
    for (const [positionId, p] of log.positions) {
      if (documents.has(positionId)) continue;
      positionsChecked++;
      if (agent.ledgerSeq >= p.firstSeq)
        findings.compare(agent._id, {
          kind: 'position',
          id: positionId,
          field: 'document',
          expected: 'present',
          actual: 'absent',
        });
    }
  }
  return { positions: positionsChecked, behind, findings };
}

const AGENT_PROJECTION = { ledgerSeq: 1, ...Object.fromEntries(AGENT_SUMS.map((f) => [f, 1])) };

export const agentAuditor: Auditor<AuditedAgent> = {
  read: (models, filter) =>
    models.Agent.find(filter, AGENT_PROJECTION).sort({ _id: 1 }).lean<AuditedAgent[]>(),
  audit: auditAgentBatch,
};
