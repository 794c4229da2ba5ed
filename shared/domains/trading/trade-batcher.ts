import { withinDatabaseDeadline } from '../../infra/database-unavailable.js';
import { Batcher } from '../../util/batcher.js';
import type { TradeExecutionContext } from './venue-trading.js';
import { executeTradeBatch } from './trade-batch.js';
import type { TradeResult } from './trade.schemas.js';

/** A batch takes well under a second, and under an outage each of its calls fails within one. */
export const BATCH_DEADLINE_MS = 60_000;

/**
 * Gathers the trades a worker process has in hand into batches (trade-batch.ts; on sim, group
 * commits of the sim engine): while one batch is being written, the trades that arrive wait and go together in the next. Under light
 * load a batch is one trade and starts at once; under heavy load the round trips of a batch are
 * shared by up to `maxBatch` trades. `waitMs` holds each batch open that much longer (0: never);
 * `deadlineMs` bounds each batch (BATCH_DEADLINE_MS).
 */
export class TradeBatcher {
  private readonly batcher: Batcher<string, TradeResult>;

  constructor(ctx: TradeExecutionContext, opts: { maxBatch: number; waitMs: number; deadlineMs?: number }) {
    const deadlineMs = opts.deadlineMs ?? BATCH_DEADLINE_MS;
    this.batcher = new Batcher({
      maxBatch: opts.maxBatch,
      waitMs: opts.waitMs,
      itemName: 'trade',
      // Bounded: a batch stuck on a database call that never settles would hold every later
      // trade of this process behind it; its trades' jobs wait and run again instead.
      runBatch: (tradeIds) =>
        withinDatabaseDeadline(
          executeTradeBatch(ctx, tradeIds),
          deadlineMs,
          `a group commit of ${tradeIds.length} trade(s)`,
        ),
    });
  }

  execute(tradeId: string): Promise<TradeResult> {
    return this.batcher.run(tradeId);
  }
}
