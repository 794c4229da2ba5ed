import type { TradeResult } from '../domains/trading/trade.schemas.js';
import { tradeContext } from '../domains/trading/context.js';
import { TradeBatcher } from '../domains/trading/trade-batcher.js';
import type { Deps } from './deps.js';

/**
 * One group commit per process: the trades its workers hold go to the database together. The
 * batcher is the sim venue's code, so the process's one instance is made here, where venues are
 * built; the `execute-trade` job reaches it by this function alone.
 */
const batchers = new WeakMap<Deps, TradeBatcher>();

/** Runs a recorded trade (the `execute-trade` job), in the next group commit of this process. */
export function executeRecordedTrade(deps: Deps, tradeId: string): Promise<TradeResult> {
  let batcher = batchers.get(deps);
  if (!batcher) {
    batcher = new TradeBatcher(tradeContext(deps), {
      maxBatch: deps.env.TRADE_WORKER_CONCURRENCY,
      waitMs: deps.env.TRADE_BATCH_WAIT_MS,
    });
    batchers.set(deps, batcher);
  }
  return batcher.execute(tradeId);
}
