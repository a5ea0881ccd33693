import { syncDatasetsSearch } from '../../search/sync.ts';
import type { DomainContext } from '../context.ts';

/** Datasets per search sync: their keyword documents and points are written together. */
const SYNC_BATCH = 50;

/**
 * The page's datasets on their way into search: each full batch is synced as soon as it is full, one
 * batch at a time, and `flush` syncs the rest and answers the first failure.
 */
export class SearchBatches {
  private readonly seen = new Set<string>();
  private pending: string[] = [];
  private syncing: Promise<void> = Promise.resolve();
  private failure: { err: unknown } | null = null;

  constructor(private readonly ctx: DomainContext) {}

  add(datasetId: string) {
    if (this.seen.has(datasetId)) return;
    this.seen.add(datasetId);
    this.pending.push(datasetId);
    if (this.pending.length >= SYNC_BATCH) this.send();
  }

  async flush(): Promise<void> {
    if (this.pending.length) this.send();
    await this.syncing;
    if (this.failure) throw this.failure.err;
  }

  private send() {
    const batch = this.pending;
    this.pending = [];
    // Caught here, so that a failure waits for flush instead of going unhandled; the batches after it are not tried.
    this.syncing = this.syncing
      .then(async () => {
        if (!this.failure) await syncDatasetsSearch(this.ctx, batch, { embed: 'later' });
      })
      .catch((err: unknown) => void (this.failure ??= { err }));
  }
}
