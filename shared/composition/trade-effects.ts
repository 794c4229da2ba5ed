import { enqueueAlertEvaluation } from '../domains/alerts/evaluate-price-alerts.js';
import { protectFilledBuys } from '../domains/monitors/monitors.js';
import { announceTradesExecuted, filledTrades } from '../domains/webhooks/events.js';
import { GroupRunner } from '../util/group-runner.js';
import type { Deps } from './deps.js';

/** What the `after-trade-fill` job answers. */
export type AfterFillAnswer =
  | { trade_id: string; filled: false }
  | { trade_id: string; filled: true; webhooks: number; monitor_armed: boolean };

/** The most `after-trade-fill` jobs one group takes (the queue's concurrency bounds it first). */
const MAX_EFFECTS_GROUP = 64;
/**
 * How long a group stays open for more jobs: the effects are off the trade's answer, and the fills of
 * one group commit reach the queue one by one as their jobs end.
 */
const GATHER_MS = 10;

/**
 * A recorded fill's effects, for the fills of many jobs at once, each idempotent as alone: the
 * `trade.executed` event (its id is the trade's), the buy's default monitor (armed once, and never
 * over the agent's delete of it after the trade was made: monitors.ts `armableBy`), the
 * evaluation of the market's price alerts. One read of the trades, one of the webhooks, one of the
 * chat bridges (agents, then their owners' settings), one bulk write of the monitors and one read of
 * the markets' alerts, whatever the number of fills.
 */
export async function runTradeEffects(deps: Deps, tradeIds: string[]): Promise<Map<string, AfterFillAnswer>> {
  const ids = [...new Set(tradeIds)];
  const filled = await filledTrades(deps, ids);
  const trades = ids.flatMap((id) => filled.get(id) ?? []);
  const lastFillOf = new Map(trades.map((t) => [t.marketId, t._id]));
  const [announced, armed] = await Promise.all([
    announceTradesExecuted(deps, trades),
    // A buy is protected by the owner's default stop-loss / take-profit (auto_risk_monitor_enabled).
    protectFilledBuys(deps, trades),
    // The fills moved their markets' prices.
    evaluateAlertsOf(deps, lastFillOf),
  ]);
  const answers = new Map<string, AfterFillAnswer>(ids.map((id) => [id, { trade_id: id, filled: false }]));
  trades.forEach((t, i) =>
    answers.set(t._id, {
      trade_id: t._id,
      filled: true,
      webhooks: announced[i]!.queued,
      monitor_armed: armed[i]!,
    }),
  );
  return answers;
}

/**
 * Enqueues the evaluation of the price alerts of the markets `lastFillOf` names (market → the last
 * fill of it here, the evaluation's cause) that have an untriggered alert: one evaluation per
 * market, since any covers every event of its market after each alert's `lastSeq`, and one enqueued
 * after these fills were recorded covers them all. A market without one is skipped: an alert
 * created after this read starts at the market's version at its creation (alerts/price-alerts.ts),
 * so a fill recorded before it is no concern of it, and one created while the fill was being written
 * is walked at the market's next price change, as after a lost evaluation job.
 */
async function evaluateAlertsOf(deps: Deps, lastFillOf: Map<string, string>): Promise<void> {
  if (!lastFillOf.size) return;
  const alerted = await deps.models.PriceAlert.find(
    { marketId: { $in: [...lastFillOf.keys()] }, triggeredAt: null },
    { marketId: 1 },
  ).lean();
  const markets = new Set(alerted.map((a) => a.marketId));
  await Promise.all(
    [...markets].map((marketId) =>
      enqueueAlertEvaluation(deps, marketId, `trade-${lastFillOf.get(marketId)!}`),
    ),
  );
}

const runners = new WeakMap<Deps, GroupRunner<string, AfterFillAnswer>>();

/**
 * Runs a recorded fill's effects (the `after-trade-fill` job), in the next group of this process:
 * while one group runs, the jobs that arrive wait and go together in the next, each group held open
 * GATHER_MS for more. A group that fails fails each of its jobs, which BullMQ retries: every effect
 * is idempotent.
 */
export function runAfterTradeFill(deps: Deps, tradeId: string): Promise<AfterFillAnswer> {
  let runner = runners.get(deps);
  if (!runner) {
    runner = new GroupRunner({
      maxGroup: MAX_EFFECTS_GROUP,
      waitMs: GATHER_MS,
      itemName: 'after-trade-fill of trade',
      runGroup: async (tradeIds) => {
        const answers = await runTradeEffects(deps, tradeIds);
        return new Map([...answers].map(([id, answer]) => [id, { result: answer }]));
      },
    });
    runners.set(deps, runner);
  }
  return runner.run(tradeId);
}
