import { tradeContext, type ContextDeps } from './context.js';
import { TradeGroupCommit } from './group-commit.js';
import { settleAdmission, type TradeLifecycleDeps } from './trade-lifecycle.js';
import type { TradeResult } from './trade.schemas.js';

/**
 * Execute a trade: the `execute-trade` job, the worker's half of a trade that `POST /api/sdk/trade`
 * recorded and queued (submit-trade.ts is the API's half). Read this first; the steps below it are
 *
 * 1. the trade runs in this process's next group commit (group-commit.ts): claimed with the trades
 *    the process holds at once, handed to its venue together with theirs (the sim engine) or alone
 *    (run-trade.ts: the kill switch and automaton halt looked at again, then the venue's `execute`);
 * 2. a buy that did not fill gives its daily-limit admission back (trade-lifecycle.ts);
 * 3. a fill's effects (its webhook event, default monitor, price alerts) are queued as the
 *    `after-trade-fill` job, off the path of the answer the API is waiting for.
 *
 * Every step is idempotent: a retried job runs the trade once and queues the same effects' id.
 */
export async function executeTrade(deps: ExecuteTradeDeps, tradeId: string): Promise<TradeResult> {
  const result = await groupCommitOf(deps).execute(tradeId);
  // Only buys take an admission; a trade the API already marked failed has no result at all.
  if (!result?.success && result?.action !== 'sell') await settleAdmission(deps, tradeId);
  // A retried job enqueues the same id, which queues nothing.
  if (result?.success) await deps.queues.enqueue('after-trade-fill', { tradeId });
  return result;
}

export type ExecuteTradeDeps = ContextDeps & TradeLifecycleDeps;

/** One group commit per process (per deps): the trades its workers hold go to the database together. */
const groupCommits = new WeakMap<ExecuteTradeDeps, TradeGroupCommit>();

function groupCommitOf(deps: ExecuteTradeDeps): TradeGroupCommit {
  let groupCommit = groupCommits.get(deps);
  if (!groupCommit) {
    groupCommit = new TradeGroupCommit(tradeContext(deps), {
      maxGroup: deps.env.TRADE_WORKER_CONCURRENCY,
      waitMs: deps.env.TRADE_BATCH_WAIT_MS,
    });
    groupCommits.set(deps, groupCommit);
  }
  return groupCommit;
}
