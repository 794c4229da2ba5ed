import { fromMicro } from '../money.js';
import type { Models } from '../models.js';
import { FILLED } from '../trading/trade.model.js';
import { skillOutcomes } from '../reads/skill-outcomes.js';
import type { AutomatonCycleRecord } from './automaton-cycle.model.js';
import type { CycleRecordInput } from './automaton.schemas.js';
import { buyCostMicro } from '../limits/automaton-budget.js';
import { requireAutomaton } from './automaton-state.js';

/** Cycles listed at most per call: each one's outcomes are read from the trades. */
export const MAX_CYCLES = 50;

/** `POST /cycles`: appends the cycle to the agent's history, numbered from the automaton's counter. */
export async function recordCycle(models: Models, agentId: string, input: CycleRecordInput) {
  await requireAutomaton(models, agentId);
  const { cycleSeq } = (await models.Automaton.findOneAndUpdate(
    { _id: agentId },
    { $inc: { cycleSeq: 1 } },
    { returnDocument: 'after', projection: { cycleSeq: 1 } },
  ).lean())!;
  const cycle = await models.AutomatonCycle.create({
    agentId,
    seq: cycleSeq,
    cycleNum: input.cycle_num,
    tier: input.tier,
    epsilon: input.epsilon,
    selectedSkills: input.selected_skills,
    tuningHints: input.tuning_hints,
    configChanges: input.config_changes ?? [],
    budgetUsd: input.budget_usd ?? null,
    spentUsd: input.spent_usd ?? null,
  });
  return { id: cycleSeq, cycle_num: input.cycle_num, created_at: cycle.createdAt.toISOString() };
}

/**
 * One skill's result over a span: its filled trades, what its buys cost, and the P&L of the
 * positions it opened (the outcomes read's attribution rule, `GET /api/sdk/outcomes`).
 */
async function skillSpan(models: Models, agentId: string, slug: string, since: Date, until: Date | null) {
  const createdAt = { $gte: since, ...(until ? { $lt: until } : {}) };
  const [result, costMicro] = await Promise.all([
    skillOutcomes(models, agentId, slug, since, until),
    buyCostMicro(models, { agentId, skillSlug: slug, createdAt }),
  ]);
  return {
    skill_slug: slug,
    trades: result.trades,
    total_cost: fromMicro(costMicro),
    period_pnl: result.pnl,
  };
}

/**
 * `GET /cycles`, newest first. A cycle's outcomes are its selected skills' results from its
 * recording until the next cycle's (or now for the latest).
 */
export async function listCycles(models: Models, agentId: string, q: { limit: number; since?: Date }) {
  const filter = { agentId, ...(q.since ? { createdAt: { $gte: q.since } } : {}) };
  const [cycles, total] = await Promise.all([
    models.AutomatonCycle.find(filter).sort({ seq: -1 }).limit(q.limit).lean(),
    models.AutomatonCycle.countDocuments(filter),
  ]);
  const next = await models.AutomatonCycle.findOne({ agentId, seq: { $gt: cycles[0]?.seq ?? 0 } })
    .sort({ seq: 1 })
    .lean();
  const ends = cycles.map((_, i) => (i === 0 ? (next?.createdAt ?? null) : cycles[i - 1]!.createdAt));
  const views = await Promise.all(cycles.map((c, i) => cycleView(models, c, ends[i] ?? null)));
  return { cycles: views, total };
}

async function cycleView(models: Models, c: AutomatonCycleRecord, until: Date | null) {
  const slugs = [...new Set(c.selectedSkills.map((s) => s.slug))];
  return {
    id: c.seq,
    cycle_num: c.cycleNum,
    tier: c.tier,
    epsilon: c.epsilon,
    selected_skills: c.selectedSkills.map((s) => ({
      slug: s.slug,
      reason: s.reason,
      score: s.score ?? null,
    })),
    tuning_hints: c.tuningHints,
    config_changes: c.configChanges,
    budget_usd: c.budgetUsd,
    spent_usd: c.spentUsd,
    created_at: c.createdAt.toISOString(),
    outcomes: await Promise.all(slugs.map((s) => skillSpan(models, c.agentId, s, c.createdAt, until))),
  };
}

/**
 * `GET /outcomes?since=`: one row per skill the agent traded with since then. The plugin keeps the
 * rows of its venue, so each row carries the automaton's venue; trades, cost and P&L are the skill's
 * on every venue (an automaton runs on one venue, and the outcomes read does not split by venue).
 */
export async function automatonOutcomes(models: Models, agentId: string, since: Date) {
  const automaton = await requireAutomaton(models, agentId);
  const slugs = (await models.Trade.distinct('skillSlug', {
    agentId,
    skillSlug: { $ne: null },
    createdAt: { $gte: since },
    ...FILLED,
  })) as string[];
  const rows = await Promise.all(slugs.sort().map((s) => skillSpan(models, agentId, s, since, null)));
  return {
    outcomes: rows.map((r) => ({ ...r, venue: automaton.venue })),
    since: since.toISOString(),
  };
}
