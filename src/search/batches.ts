interface Waiting<T> {
  item: T;
  settle: (outcome: { ok: true } | { ok: false; err: unknown }) => void;
}

/**
 * Group commit: one batch runs at a time, and whatever arrives while it runs goes together into the next.
 * Alone, an item runs at once; under load, eight requests' writes cost what one costs in statements and
 * commits. A failed batch fails each of its items with the batch's error; `maxBatch` bounds a batch.
 */
export class Batches<T> {
  private queue: Array<Waiting<T>> = [];
  private running = false;

  constructor(
    private readonly run: (items: T[]) => Promise<void>,
    private readonly maxBatch: number,
  ) {}

  add(item: T): Promise<void> {
    const settled = new Promise<{ ok: true } | { ok: false; err: unknown }>((settle) => this.queue.push({ item, settle }));
    void this.drain();
    return settled.then((outcome) => {
      if (!outcome.ok) throw outcome.err;
    });
  }

  private async drain() {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        const outcome = await this.run(batch.map((w) => w.item)).then(
          () => ({ ok: true }) as const,
          (err: unknown) => ({ ok: false, err }) as const,
        );
        for (const waiting of batch) waiting.settle(outcome);
      }
    } finally {
      this.running = false;
    }
  }
}
