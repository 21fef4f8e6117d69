interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/** How one kind of statement runs alone and for many items at once. */
export interface StatementBatchOptions<Item, Result> {
  /** Runs items of distinct keys as one statement; results in the items' order. Rejects only when that statement failed. */
  runMany(items: Item[]): Promise<Result[]>;
  /** Runs one item alone: a batch of one, or each item of a batch whose statement failed. */
  runOne(item: Item): Promise<Result>;
  /** Writes of one key (a document) must not share a statement: they run one after the other. Reads need no key. */
  key?(item: Item): string;
}

/** Items per statement at most: bounds the parameter arrays. */
const MAX_ROWS = 256;

/**
 * Batches one kind of statement for PostgreSQL: the items handed over during one turn of the
 * event loop go out as one multi-row statement, so they share one round trip (and, for writes,
 * one commit) instead of paying one each: on a busy two-core host the system calls and process
 * wake-ups of a round trip cost more than a point read or write. A statement is atomic: when one
 * fails, none of its rows was written, and each item runs again alone to get its own answer (one
 * bad value fails only itself).
 *
 * Writes of one document in the same turn go in successive statements, in the order they came.
 */
export class StatementBatch<Item, Result> {
  private pending: Pending<Item, Result>[] = [];

  constructor(private readonly options: StatementBatchOptions<Item, Result>) {}

  run(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ item, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    let waiting = this.pending;
    this.pending = [];
    while (waiting.length > 0) {
      const { round, later } = this.nextRound(waiting);
      await this.runRound(round);
      waiting = later;
    }
  }

  /** The first waiting item of each key, up to `MAX_ROWS`; the rest waits for later rounds. */
  private nextRound(waiting: Pending<Item, Result>[]) {
    const keys = new Set<string>();
    const round: Pending<Item, Result>[] = [];
    const later: Pending<Item, Result>[] = [];
    for (const pending of waiting) {
      const key = this.options.key?.(pending.item);
      if ((key !== undefined && keys.has(key)) || round.length >= MAX_ROWS) {
        later.push(pending);
      } else {
        if (key !== undefined) keys.add(key);
        round.push(pending);
      }
    }
    return { round, later };
  }

  private async runRound(round: Pending<Item, Result>[]): Promise<void> {
    if (round.length > 1) {
      try {
        const results = await this.options.runMany(round.map((pending) => pending.item));
        for (const [i, pending] of round.entries()) pending.resolve(results[i] as Result);
        return;
      } catch {
        // Nothing of the statement was written; each item's own run gives it its own answer.
      }
    }
    await Promise.all(round.map((pending) => this.options.runOne(pending.item).then(pending.resolve, pending.reject)));
  }
}
