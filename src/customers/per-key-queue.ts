/**
 * Runs tasks one after another per key, in call order; different keys run side by side.
 *
 * FerretDB (development and tests) does not check an update's filter atomically with the write, so
 * two "set the default only while unset" updates of one customer can both succeed. Queuing this
 * process's writes of one customer's `defaultMethod` keeps them in order there; MongoDB's own atomic
 * conditional update is what holds across several processes.
 */
export class PerKeyQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with queued or running tasks (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
