/** One item's answer from its group: its result, or the error its caller is rejected with. */
export type GroupAnswer<R> = { result: R } | { error: unknown };

export interface GroupRunnerOptions<K, R> {
  /** The most items one group takes; the rest wait for the next. */
  maxGroup: number;
  /**
   * How long each group stays open for more items before it runs. 0: it runs as soon as the
   * previous one ends, so under light load a group is one item and starts within the caller's call.
   */
  waitMs: number;
  /** What one item is, for the error of an item its group left unanswered (`trade`: `trade <key> …`). */
  itemName: string;
  /**
   * Runs one group and answers its items by key (a key asked twice shares its answer). A throw
   * rejects every item of the group with that error. Groups run one at a time, so one that never
   * settles holds back every later one: bound it here (a deadline) where that can happen.
   */
  runGroup(keys: K[]): Promise<Map<K, GroupAnswer<R>>>;
}

/**
 * Gathers callers into groups and runs one group at a time: while one runs, the items that
 * arrive wait and go together in the next, up to `maxGroup`. Each caller gets its own item's
 * answer, in the order the items came.
 */
export class GroupRunner<K, R> {
  private waiting: { key: K; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  private running = false;

  constructor(private readonly opts: GroupRunnerOptions<K, R>) {}

  run(key: K): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      // Started here, not on a later tick: with no wait, a lone item's group begins at once.
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length) {
        if (this.opts.waitMs > 0) await new Promise((r) => setTimeout(r, this.opts.waitMs));
        const group = this.waiting.splice(0, this.opts.maxGroup);
        let answers: Map<K, GroupAnswer<R>>;
        try {
          answers = await this.opts.runGroup(group.map((w) => w.key));
        } catch (err) {
          answers = new Map(group.map((w): [K, GroupAnswer<R>] => [w.key, { error: err }]));
        }
        for (const w of group) {
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
