import type { TradeResult } from '../domains/trading/trade.schemas.js';
import { tradeContext } from '../domains/trading/context.js';
import { TradeGroupCommit } from '../domains/trading/group-commit.js';
import type { Deps } from './deps.js';

/** One group commit per process: the trades its workers hold go to the database together. */
const groupCommits = new WeakMap<Deps, TradeGroupCommit>();

/** Runs a recorded trade (the `execute-trade` job), in the next group commit of this process. */
export function executeRecordedTrade(deps: Deps, tradeId: string): Promise<TradeResult> {
  let groupCommit = groupCommits.get(deps);
  if (!groupCommit) {
    groupCommit = new TradeGroupCommit(tradeContext(deps), {
      maxGroup: deps.env.TRADE_WORKER_CONCURRENCY,
      waitMs: deps.env.TRADE_BATCH_WAIT_MS,
    });
    groupCommits.set(deps, groupCommit);
  }
  return groupCommit.execute(tradeId);
}
