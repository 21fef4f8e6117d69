/** Runs work one at a time per key, in arrival order; different keys run side by side. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` after every earlier `run` of the same key has finished. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
