/**
 * The replies of one connection in the order of its messages while its writes commit in the
 * background: a write is handled as soon as it has its place in the commit order, so the next
 * message need not wait for its commit, and its `ack` (or `error`) goes out after the replies of
 * the messages before it. A message that must see the earlier writes committed waits for `drained`.
 */
export class OrderedReplies {
  private last: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly onError: (error: unknown) => void) {}

  /** True when no reply is waiting for a commit. */
  get idle(): boolean {
    return this.waiting === 0;
  }

  /** Resolves once every reply queued so far is sent. */
  drained(): Promise<void> {
    return this.last;
  }

  /**
   * Queues the reply to `outcome`: `reply` runs once `outcome` has settled and the earlier replies
   * are sent. The promise returned resolves after it ran (never rejects).
   */
  after<T>(outcome: Promise<T>, reply: (result: PromiseSettledResult<T>) => void): Promise<void> {
    this.waiting += 1;
    const settled = outcome.then(
      (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
      (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
    );
    this.last = Promise.all([this.last, settled]).then(([, result]) => {
      this.waiting -= 1;
      try {
        reply(result);
      } catch (error) {
        this.onError(error);
      }
    });
    return this.last;
  }
}
