import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import type { Refusal } from '../refusal.js';
import { FILLED } from '../trading/trade.model.js';
import { limitKeys, type BudgetReservation } from './counters.js';
import type { CachedAutomaton, SettingsCache } from './settings-cache.js';

/** What reading an agent's automaton through the process's cache needs. */
export interface AutomatonDeps {
  models: Models;
  caches: Pick<SettingsCache, 'automatons'>;
}

const NO_AUTOMATON: CachedAutomaton = Object.freeze({ none: true });

/**
 * The agent's automaton as the trade guard reads it (halt, venue, budget, start), from the
 * process's cache. Every write of these fields (init, halt, resume: automaton-state.ts) publishes
 * `automaton` on the invalidation channel after it, so this process drops its entry at once and
 * every other within milliseconds, as the kill switch's settings are: a halt counts at once.
 */
export const cachedAutomaton = (deps: AutomatonDeps, agentId: string): Promise<CachedAutomaton> =>
  deps.caches.automatons.getOrLoad(agentId, async () => {
    const a = await deps.models.Automaton.findById(agentId, {
      halted: 1,
      venue: 1,
      budgetMicro: 1,
      startedAt: 1,
    }).lean();
    return a
      ? Object.freeze({
          none: false as const,
          halted: a.halted,
          venue: a.venue,
          budgetMicro: a.budgetMicro,
          startedAt: a.startedAt,
        })
      : NO_AUTOMATON;
  });

/** What an agent's automaton allows now: whether it is halted, and the budget left on its venue. */
export interface AutomatonStanding {
  halted: boolean;
  venue: string;
  budgetMicro: number;
  /** Its run: set by every init, so a new init starts a new budget counter. */
  startedAtMs: number;
  /** Filled buys on the venue since the automaton's start, plus buys accepted and not yet run. */
  committedMicro: number;
}

/** What the agent paid for its filled buys matching `filter` (the budget's and a skill's cost). */
export async function buyCostMicro(models: Models, filter: Record<string, unknown>): Promise<number> {
  const buys = await models.Trade.find({ ...filter, action: 'buy', ...FILLED }, { fill: 1 }).lean();
  return buys.reduce((sum, t) => sum + (t.fill?.amountMicro ?? 0), 0);
}

/**
 * The agent's automaton as the trade guard sees it, or null without one. Spent counts what
 * `GET /api/sdk/automaton/state` counts (filled buys on its venue since `started_at`) plus the buys
 * accepted and still in the queue. This read is the quick check (checkStanding); buys sent at the
 * same moment all read the same remainder, so the buy's admission reserves its amount atomically
 * (budgetReservation). A halted automaton refuses whatever the budget, so its spend is not read.
 */
export async function automatonStanding(
  deps: AutomatonDeps,
  agentId: string,
): Promise<AutomatonStanding | null> {
  const { models } = deps;
  const a = await cachedAutomaton(deps, agentId);
  if (a.none) return null;
  const standing = {
    halted: a.halted,
    venue: a.venue,
    budgetMicro: a.budgetMicro,
    startedAtMs: a.startedAt.getTime(),
    committedMicro: 0,
  };
  if (a.halted) return standing;
  const since: Record<string, unknown> = { agentId, venue: a.venue, createdAt: { $gte: a.startedAt } };
  const [filled, queued] = await Promise.all([
    buyCostMicro(models, since),
    models.Trade.find(
      { ...since, action: 'buy', status: { $in: ['pending', 'executing'] } },
      { amountMicro: 1 },
    ).lean(),
  ]);
  standing.committedMicro = filled + queued.reduce((sum, t) => sum + t.amountMicro, 0);
  return standing;
}

/**
 * What a buy reserves of the automaton's budget when it is admitted (limits/counters.ts admitBuy):
 * a buy on the automaton's venue, null otherwise. The reservation is checked and counted in one
 * Redis command, given back with the admission when the buy does not fill, and then stays counted
 * as the database counts the buy.
 */
export function budgetReservation(
  prefix: string,
  /** The agent's owner: the budget key shares the slot of the owner's other limit keys (limitKeys). */
  ownerKey: string,
  agentId: string,
  standing: AutomatonStanding | null,
  t: { venue: string; action: 'buy' | 'sell'; amountMicro: number },
): BudgetReservation | null {
  if (!standing || standing.halted || t.action !== 'buy' || t.venue !== standing.venue) return null;
  return {
    key: limitKeys(prefix).budget(ownerKey, agentId, standing.startedAtMs),
    recordedMicro: standing.committedMicro,
    budgetMicro: standing.budgetMicro,
    amountMicro: t.amountMicro,
  };
}

/** A halted automaton's refusal, when a trade is accepted and again when a worker first takes it. */
export const AUTOMATON_HALTED: Refusal = {
  error:
    'Trading is halted by your automaton; the trade was not placed. Resume it with POST /api/sdk/automaton/resume.',
  errorCode: 'automaton_halted',
  retryable: false,
  hint: 'Resume it with POST /api/sdk/automaton/resume (the agent key or the /simmer resume command), then trade again.',
  category: 'limit',
};

/** Whether the agent's automaton is halted now (the cache is dropped at every halt: it counts at once). */
export async function automatonHalted(deps: AutomatonDeps, agentId: string): Promise<boolean> {
  const a = await cachedAutomaton(deps, agentId);
  return !a.none && a.halted;
}

const usd = (micro: number) => `$${fromMicro(micro).toFixed(2)}`;

/**
 * What the automaton refuses (the plugin tells the agent the API does): every trade while it is
 * halted, on any venue (as the kill switch does); and, on its venue, a buy that its remaining
 * budget does not cover. Sells pass a spent budget, so the agent can always get out.
 */
export function automatonRefusal(
  standing: AutomatonStanding | null,
  t: { venue: string; action: 'buy' | 'sell'; amountMicro: number },
): Refusal | null {
  if (!standing) return null;
  if (standing.halted) return AUTOMATON_HALTED;
  if (t.action !== 'buy' || t.venue !== standing.venue) return null;
  const remaining = standing.budgetMicro - standing.committedMicro;
  if (t.amountMicro <= remaining) return null;
  return {
    error:
      remaining > 0
        ? `Automaton budget exceeded: this buy of ${usd(t.amountMicro)} is more than the ${usd(remaining)} left of its ${usd(standing.budgetMicro)} budget on ${standing.venue}.`
        : `Automaton budget spent: ${usd(standing.committedMicro)} of its ${usd(standing.budgetMicro)} budget on ${standing.venue} is used; buys are refused until a new POST /api/sdk/automaton/init, sells still go through.`,
    errorCode: remaining > 0 ? 'automaton_budget_exceeded' : 'automaton_budget_spent',
    retryable: false,
    hint:
      remaining > 0
        ? `Buy at most ${usd(remaining)}, or start a new budget with POST /api/sdk/automaton/init {"budget_usd": …, "horizon_days": …}.`
        : 'Start a new budget with POST /api/sdk/automaton/init {"budget_usd": …, "horizon_days": …}; sells are not limited by it.',
    category: 'limit',
  };
}
