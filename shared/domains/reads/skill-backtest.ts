import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { winRate } from './leaderboard.js';
import { positionPnlMicro, skillPositions } from './skill-outcomes.js';

const DAY_MS = 86_400_000;

/** The published rule, also the OpenAPI description of `POST /api/sdk/autoresearch/backtest`. */
export const BACKTEST_RULE =
  'Re-scores your own past trades of `skill_slug` under `config`, thresholds on their `signal_data`. ' +
  'A trade here is a position the skill opened on `venue` in the last `days` days: the buy that opened it carried `skill_slug` (the attribution of GET /api/sdk/outcomes), and that buy’s `signal_data` is what is tested. ' +
  'Config keys: `min_<field>: x` keeps a trade whose `signal_data.<field>` is a number ≥ x; `max_<field>: x` keeps it when ≤ x; a trade without that numeric field fails the threshold. A trade is included when it passes every threshold. ' +
  'Any other key is not a threshold: it is listed in `ignored_config_keys` and has no effect. ' +
  'P&L of a trade = its position’s realised P&L (sells and settlement, from the ledger) plus its open shares marked at the venue’s price less their cost. ' +
  '`original_pnl` sums every trade, `simulated_pnl` the included ones; `win_rate` = included trades with P&L > 0 over included trades (0 when none); ' +
  '`improvement_pct` = (simulated − original) / |original| × 100, null when `original_pnl` is 0.';

interface Threshold {
  field: string;
  bound: 'min' | 'max';
  value: number;
}

const THRESHOLD_KEY = /^(min|max)_(.+)$/;

function thresholdsOf(config: Record<string, number>) {
  const thresholds: Threshold[] = [];
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    const m = THRESHOLD_KEY.exec(key);
    if (m) thresholds.push({ bound: m[1] as Threshold['bound'], field: m[2]!, value });
    else ignored.push(key);
  }
  return { thresholds, ignored };
}

function passes(signalData: unknown, thresholds: readonly Threshold[]): boolean {
  const data = (signalData ?? {}) as Record<string, unknown>;
  return thresholds.every(({ field, bound, value }) => {
    const v = data[field];
    if (typeof v !== 'number' || !Number.isFinite(v)) return false;
    return bound === 'min' ? v >= value : v <= value;
  });
}

/** `POST /api/sdk/autoresearch/backtest` (rule: BACKTEST_RULE). */
export async function backtestSkill(
  models: Models,
  agentId: string,
  q: { skill_slug: string; config: Record<string, number>; days: number; venue: string },
  now: Date,
) {
  const since = new Date(now.getTime() - q.days * DAY_MS);
  const opened = (await skillPositions(models, agentId, q.skill_slug, since)).filter(
    (o) => o.position.venue === q.venue,
  );
  const { thresholds, ignored } = thresholdsOf(q.config);
  let originalMicro = 0;
  let simulatedMicro = 0;
  let included = 0;
  let wins = 0;
  for (const o of opened) {
    const pnl = positionPnlMicro(o.position, o.market);
    originalMicro += pnl;
    if (!passes(o.openingBuy.signalData, thresholds)) continue;
    included += 1;
    simulatedMicro += pnl;
    if (pnl > 0) wins += 1;
  }
  return {
    trades_total: opened.length,
    trades_included: included,
    trades_excluded: opened.length - included,
    simulated_pnl: fromMicro(simulatedMicro),
    original_pnl: fromMicro(originalMicro),
    win_rate: winRate(wins, included - wins),
    improvement_pct:
      originalMicro === 0
        ? null
        : Math.round(((simulatedMicro - originalMicro) / Math.abs(originalMicro)) * 1e4) / 100,
    ignored_config_keys: ignored,
    skill_slug: q.skill_slug,
    days: q.days,
    venue: q.venue,
  };
}
