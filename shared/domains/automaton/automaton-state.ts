import { AppError } from '../../infra/errors.js';
import { fromMicro, toMicro } from '../money.js';
import type { Models } from '../models.js';
import { buyCostMicro } from '../limits/automaton-budget.js';
import type { AutomatonRecord } from './automaton.model.js';
import type { Invalidation } from '../../infra/invalidation.js';
import type { CycleUpdateInput } from './automaton.schemas.js';
import { DEFAULT_VENUE } from '../venues/venue-id.js';

/** The plugin's starting exploration rate: what a fresh bandit state answers. */
const DEFAULT_EPSILON = 0.2;

export const notInitialized = () =>
  new AppError(
    409,
    'automaton_not_initialized',
    'Your automaton is not initialized',
    'Start it with POST /api/sdk/automaton/init {"budget_usd": 100, "horizon_days": 30}.',
  );

export async function requireAutomaton(models: Models, agentId: string): Promise<AutomatonRecord> {
  const automaton = await models.Automaton.findById(agentId).lean();
  if (!automaton) throw notInitialized();
  return automaton;
}

/**
 * `GET /state`. Spent is what the agent's filled buys on the automaton's venue cost since its start,
 * so the plugin's survival tier follows the real trades. `tier` is the one the plugin last recorded
 * (it computes its own from these numbers).
 */
export async function automatonState(models: Models, agentId: string) {
  const automaton = await models.Automaton.findById(agentId).lean();
  if (!automaton)
    return {
      initialized: false,
      budget_usd: 0,
      spent_usd: 0,
      remaining_usd: 0,
      halted: false,
      tier: 'dead',
      horizon_days: 0,
      venue: DEFAULT_VENUE,
      started_at: null,
      active_skills: [],
    };
  const [spentMicro, last] = await Promise.all([
    buyCostMicro(models, { agentId, venue: automaton.venue, createdAt: { $gte: automaton.startedAt } }),
    models.AutomatonCycle.findOne({ agentId, createdAt: { $gte: automaton.startedAt } }, { tier: 1 })
      .sort({ seq: -1 })
      .lean(),
  ]);
  return {
    initialized: true,
    budget_usd: fromMicro(automaton.budgetMicro),
    spent_usd: fromMicro(spentMicro),
    remaining_usd: fromMicro(automaton.budgetMicro - spentMicro),
    halted: automaton.halted,
    tier: last?.tier ?? 'normal',
    horizon_days: automaton.horizonDays,
    venue: automaton.venue,
    started_at: automaton.startedAt.toISOString(),
    active_skills: automaton.activeSkills,
  };
}

/**
 * `POST /init`: a new budget and horizon from now. A second init restarts the automaton (new
 * `started_at`, bandit forgotten, running) but keeps the agent's skill preferences.
 */
export async function initAutomaton(
  { models, invalidation }: { models: Models; invalidation: Pick<Invalidation, 'publish'> },
  agentId: string,
  input: { budget_usd: number; horizon_days: number; venue: string },
  now: Date,
) {
  await models.Automaton.updateOne(
    { _id: agentId },
    {
      $set: {
        budgetMicro: toMicro(input.budget_usd),
        horizonDays: input.horizon_days,
        venue: input.venue,
        startedAt: now,
        halted: false,
        activeSkills: [],
        epsilon: null,
        cycleCount: 0,
        arms: [],
      },
    },
    { upsert: true },
  );
  // The trade guard's cached copy (limits/automaton-budget.ts) is dropped everywhere.
  await invalidation.publish('automaton', agentId);
  return { success: true as const, state: await automatonState(models, agentId) };
}

/**
 * `POST /halt` and `/resume`. The trade guard's cached copy is dropped everywhere before the answer,
 * so a halt refuses every trade accepted or first taken by a worker after it.
 */
export async function setHalted(
  { models, invalidation }: { models: Models; invalidation: Pick<Invalidation, 'publish'> },
  agentId: string,
  halted: boolean,
) {
  const res = await models.Automaton.updateOne({ _id: agentId }, { $set: { halted } });
  await invalidation.publish('automaton', agentId);
  if (res.matchedCount === 0) throw notInitialized();
  return { success: true as const, halted };
}

/** `GET /bandit-state`: the arms as last posted; none yet reads as a fresh bandit. */
export async function banditState(models: Models, agentId: string) {
  const automaton = await requireAutomaton(models, agentId);
  return {
    epsilon: automaton.epsilon ?? DEFAULT_EPSILON,
    cycle_count: automaton.cycleCount,
    arms: automaton.arms as never[],
  };
}

/** `DELETE /bandit-state`: the plugin forgets its arms after a re-init. */
export async function resetBandit(models: Models, agentId: string) {
  const res = await models.Automaton.updateOne(
    { _id: agentId },
    { $set: { epsilon: null, cycleCount: 0, arms: [] } },
  );
  if (res.matchedCount === 0) throw notInitialized();
  return { success: true as const };
}

/**
 * `POST /cycle`: the skills selected now, the tuning applied and the bandit's arms, in one write.
 * A tuning change to a tunable the human pinned is not applied (the plugin should not send one).
 */
export async function updateCycle(models: Models, agentId: string, input: CycleUpdateInput) {
  const automaton = await requireAutomaton(models, agentId);
  const skills = automaton.skills.map((s) => ({ ...s, config: { ...s.config } }));
  for (const change of input.config_changes) {
    let pref = skills.find((s) => s.slug === change.slug);
    if (!pref) skills.push((pref = { slug: change.slug, enabled: true, config: {}, pinned: [] }));
    if (!pref.pinned.includes(change.env)) pref.config[change.env] = change.new;
  }
  await models.Automaton.updateOne(
    { _id: agentId },
    {
      $set: {
        activeSkills: input.active_skills,
        cycleCount: input.cycle_number,
        skills,
        ...(input.epsilon !== undefined ? { epsilon: input.epsilon } : {}),
        ...(input.bandit_arms ? { arms: input.bandit_arms } : {}),
      },
    },
  );
  return { ok: true as const, active_skills: input.active_skills, cycle_number: input.cycle_number };
}
