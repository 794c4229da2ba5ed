/** One item's answer from its batch: its result, or the error its caller is rejected with. */
export type BatchAnswer<R> = { result: R } | { error: unknown };

export interface BatcherOptions<K, R> {
  /** The most items one batch takes; the rest wait for the next. */
  maxBatch: number;
  /**
   * How long each batch stays open for more items before it runs. 0: it runs as soon as the
   * previous one ends, so under light load a batch is one item and starts within the caller's call.
   */
  waitMs: number;
  /** What one item is, for the error of an item its batch left unanswered (`trade`: `trade <key> …`). */
  itemName: string;
  /**
   * Runs one batch and answers its items by key (a key asked twice shares its answer). A throw
   * rejects every item of the batch with that error. Batches run one at a time, so one that never
   * settles holds back every later one: bound it here (a deadline) where that can happen.
   */
  runBatch(keys: K[]): Promise<Map<K, BatchAnswer<R>>>;
}

/**
 * Gathers callers into batches and runs one batch at a time: while one runs, the items that
 * arrive wait and go together in the next, up to `maxBatch`. Each caller gets its own item's
 * answer, in the order the items came.
 */
export class Batcher<K, R> {
  private waiting: { key: K; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  private running = false;

  constructor(private readonly opts: BatcherOptions<K, R>) {}

  run(key: K): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      // Started here, not on a later tick: with no wait, a lone item's batch begins at once.
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length) {
        if (this.opts.waitMs > 0) await new Promise((r) => setTimeout(r, this.opts.waitMs));
        const batch = this.waiting.splice(0, this.opts.maxBatch);
        let answers: Map<K, BatchAnswer<R>>;
        try {
          answers = await this.opts.runBatch(batch.map((w) => w.key));
        } catch (err) {
          answers = new Map(batch.map((w): [K, BatchAnswer<R>] => [w.key, { error: err }]));
        }
        for (const w of batch) {
          const answer = answers.get(w.key) ?? {
            error: new Error(`${this.opts.itemName} ${String(w.key)} was not answered`),
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
