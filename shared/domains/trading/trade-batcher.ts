import { withinDatabaseDeadline } from '../../infra/database-unavailable.js';
import type { TradeExecutionContext } from './venue-trading.js';
import { executeTradeBatch } from './trade-batch.js';
import type { TradeAnswer } from './venue-trading.js';
import type { TradeResult } from './trade.schemas.js';

/** A batch takes well under a second, and under an outage each of its calls fails within one. */
export const BATCH_DEADLINE_MS = 60_000;

interface Waiting {
  tradeId: string;
  resolve: (result: TradeResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Gathers the trades a worker process has in hand into batches (trade-batch.ts; on sim, group
 * commits of the sim engine): while one batch is being written, the trades that arrive wait and go together in the next. Under light
 * load a batch is one trade and starts at once; under heavy load the round trips of a batch are
 * shared by up to `maxBatch` trades. `waitMs` holds each batch open that much longer (0: never);
 * `deadlineMs` bounds each batch (BATCH_DEADLINE_MS).
 */
export class TradeBatcher {
  private waiting: Waiting[] = [];
  private running = false;

  constructor(
    private readonly ctx: TradeExecutionContext,
    private readonly opts: { maxBatch: number; waitMs: number; deadlineMs?: number },
  ) {}

  execute(tradeId: string): Promise<TradeResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ tradeId, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length) {
        if (this.opts.waitMs > 0) await new Promise((r) => setTimeout(r, this.opts.waitMs));
        const batch = this.waiting.splice(0, this.opts.maxBatch);
        let answers: Map<string, TradeAnswer>;
        try {
          // Bounded: a batch stuck on a database call that never settles would hold every later
          // trade of this process behind it; its trades' jobs wait and run again instead.
          answers = await withinDatabaseDeadline(
            executeTradeBatch(
              this.ctx,
              batch.map((w) => w.tradeId),
            ),
            this.opts.deadlineMs ?? BATCH_DEADLINE_MS,
            `a group commit of ${batch.length} trade(s)`,
          );
        } catch (err) {
          answers = new Map(batch.map((w) => [w.tradeId, { error: err }]));
        }
        for (const w of batch) {
          const answer = answers.get(w.tradeId) ?? {
            error: new Error(`trade ${w.tradeId} was not answered`),
          };
          if ('result' in answer) w.resolve(answer.result);
          else w.reject(answer.error);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
