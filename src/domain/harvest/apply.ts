import { DeadlockException, LockMode, DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { pgArray } from '../../db.ts';
import { isTransientDatabaseFailure } from '../../net/backend-outage.ts';
import { Dataset, HarvestRunRecord, type HarvestOutcome, type HarvestRun, type HarvestSource } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { tooLong } from '../datasets/limits.ts';
import { RESERVED_DATASET_NAMES } from '../datasets/reserved-names.ts';
import { shareProfileReads } from '../metadata/profiles.ts';
import { invalidateOutputs } from '../pipeline/record.ts';
import { startPipeline } from '../pipeline/start.ts';
import { removeResourceFiles } from '../resources/file-removal.ts';
import type { SourceOrganization } from './group-mirroring.ts';
import type { HarvestItem, HarvestRecord } from './record.ts';
import { describeErrors, itemKey, mapRecord, MAX_REMOTE_ID, RecordFailed, recordErrors, recordHash, storable } from './record-rules.ts';
import { SearchBatches } from './search-batches.ts';
import { insertRunRecord, recordBaseName, writeRecord, type FollowUp } from './write-record.ts';

export { finishHarvestRun, harvestRunCounts, type HarvestRunCounts } from './runs.ts';

/** Records of a page applied side by side (each holds a database connection while it writes). */
const APPLY_CONCURRENCY = 6;

/**
 * Applies the items of a page, a few at a time, and brings the search state of the datasets they created
 * or changed in line in batches while it goes (a few statements per batch, instead of a publish-sync
 * workflow per dataset). Their new texts wait for the vector backlog job that the run's end starts
 * (announceRunVectors): a harvest is found by keywords at the pace of the database, and by meaning at
 * the model's. A throw (the database down: a bad record only fails), or `signal` aborting (the run was
 * terminated or cancelled), stops the taking of new items; the ones in flight finish before it is
 * rethrown, so nothing of this page is still writing when the page is tried again. What it committed is
 * synced first all the same; a replay syncs it again, as the sync is idempotent.
 */
export async function applyHarvestPage(
  ctx: DomainContext,
  source: HarvestSource,
  run: HarvestRun,
  items: HarvestItem[],
  { onApplied = () => {}, signal }: { onApplied?: () => void; signal?: AbortSignal } = {},
): Promise<HarvestOutcome[]> {
  const outcomes: HarvestOutcome[] = [];
  const search = new SearchBatches(ctx);
  const page = await pageState(ctx.em, source, run, items);
  let taken = 0;
  let failure: { err: unknown } | null = null;
  const applyNext = async () => {
    while (!failure && !signal?.aborted && taken < items.length) {
      const i = taken++;
      try {
        outcomes[i] = await applyHarvestItem({ ...ctx, em: ctx.em.fork() }, source, run, items[i]!, search, page);
        onApplied();
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(APPLY_CONCURRENCY, items.length) }, applyNext));
  const stopped = failure ?? (signal?.aborted ? { err: signal.reason } : null);
  if (stopped) {
    // What committed before the stop is searchable all the same: a cancelled run is not replayed, and a
    // later run finds those records unchanged and would not sync them again.
    await search
      .flush()
      .catch((err: unknown) => ctx.log.warn({ err }, 'search sync of a stopped harvest page failed; a reindex brings those datasets in'));
    throw stopped.err;
  }
  await search.flush();
  return outcomes;
}

/** What a page's items share, read once per page attempt instead of once per item. */
interface PageState {
  /** The run records of the page's items written before this attempt (a replay after a crash). */
  done: Map<string, { outcome: HarvestOutcome; datasetId: string | null }>;
  /** Remote ids of the page that have a dataset from this source here; the others need no lookup at first. */
  known: Set<string>;
  /** Remote ids met so far in this attempt: one met twice is looked up again, as its first may be written by now. */
  met: Set<string>;
  organization: SourceOrganization;
  /** Base names no dataset held as the page began, each derived by one record of the page only. */
  freeNames: Set<string>;
  /** What the page's transactions read once for all (the metadata profiles). */
  reads: Pick<DomainContext, 'em'>;
}

async function pageState(em: EntityManager, source: HarvestSource, run: HarvestRun, items: HarvestItem[]): Promise<PageState> {
  // An item that cannot be read throws again when it is taken, where the page's stop handles it. Each
  // item is read once here: the records' base names come from the same pass.
  const keys: string[] = [];
  const bases = new Map<string, string>();
  for (const item of items) {
    try {
      const key = itemKey(item);
      keys.push(key);
      const { record } = item as { record?: HarvestRecord };
      if (record) bases.set(key, recordBaseName(record));
    } catch {
      // as above
    }
  }
  const rows = await em.execute<Array<{ remote_id: string; outcome: HarvestOutcome; dataset_id: string | null }>>(
    'select remote_id, outcome, dataset_id from harvest_run_records where run_id = ? and remote_id = any(?::text[])',
    [run.id, pgArray(keys)],
  );
  const known = await em.execute<Array<{ harvest_remote_id: string }>>(
    'select harvest_remote_id from datasets where harvest_source_id = ? and harvest_remote_id = any(?::text[])',
    [source.id, pgArray(keys)],
  );
  const knownIds = new Set(known.map((r) => r.harvest_remote_id));
  const derived = new Map<string, number>();
  for (const [key, base] of bases) if (!knownIds.has(key)) derived.set(base, (derived.get(base) ?? 0) + 1);
  const candidates = [...derived].filter(([base, n]) => n === 1 && !RESERVED_DATASET_NAMES.has(base)).map(([base]) => base);
  const taken = new Set(
    candidates.length
      ? (await em.execute<Array<{ name: string }>>('select name from datasets where name = any(?::text[])', [pgArray(candidates)])).map(
          (r) => r.name,
        )
      : [],
  );
  const orgId = source.organization ? (source.organization as { id: string }).id : null;
  const [org] = orgId ? await em.execute<Array<{ state: string }>>('select state from groups where id = ?', [orgId]) : [];
  return {
    done: new Map(rows.map((r) => [r.remote_id, { outcome: r.outcome, datasetId: r.dataset_id }])),
    known: knownIds,
    met: new Set(),
    organization: !orgId || !org ? null : org.state === 'active' ? { id: orgId } : 'deleted',
    freeNames: new Set(candidates.filter((base) => !taken.has(base))),
    // A unit of work of the page's own: a profile saved during a run holds from the next page on.
    reads: { em: em.fork() },
  };
}

/**
 * Applies one item of a harvest page: creates, updates or leaves alone the dataset of (source, remote
 * id), or records why it could not. The dataset's write and the run's record of it (HarvestRunRecord,
 * keyed by run and remote id) commit in one transaction, so a page replayed after a crash finds the
 * record done and returns its outcome: nothing is created twice, nothing counted twice. Harvested
 * datasets are active and published at once, in the source's organization (for CKAN sources, the
 * record's own, mirrored by name), under the record's name or, when that is taken by a dataset from
 * elsewhere, the first free `name-2`, `name-3`…
 *
 * After the commit, the follow-up work of a hand-made change: the pipeline again for a link it had
 * processed whose format changed, and the dataset into the page's search batches. New links are not
 * fetched here, as with POST /packages: the pipeline runs them on demand (run-pipeline, enqueue-all), on
 * the worker's task queue and within its concurrency limits, so a big harvest never floods the fetchers;
 * its fetch keeps its own guard (http(s) only, no private addresses). Those follow-ups are idempotent and are re-run
 * when a replay finds the record done, so a crash between the commit and them loses nothing.
 */
async function applyHarvestItem(
  ctx: DomainContext,
  source: HarvestSource,
  run: HarvestRun,
  item: HarvestItem,
  search: SearchBatches,
  page: PageState,
): Promise<HarvestOutcome> {
  const remoteId = itemKey(item);
  const again = page.met.has(remoteId);
  page.met.add(remoteId);
  const done = again ? await ctx.em.fork().findOne(HarvestRunRecord, { run: run.id, remoteId }) : page.done.get(remoteId);
  if (done) {
    await followUp(ctx, search, { outcome: done.outcome, datasetId: done.datasetId ?? null, removedResourceIds: [], reprocessIds: [] });
    return done.outcome;
  }
  if (item.kind === 'refused') {
    if (item.withdrawn) {
      const withdrawn = await withdraw(ctx, search, source, run, remoteId, storable(item.title), storable(item.reason));
      if (withdrawn) return withdrawn;
    }
    return recordOnly(ctx, run, remoteId, storable(item.title), storable(item.reason));
  }

  const record = mapRecord(item.record);
  if (record.remoteId.length > MAX_REMOTE_ID) {
    return recordOnly(ctx, run, remoteId, record.title, `remoteId: ${tooLong(record.remoteId.length, MAX_REMOTE_ID)}`);
  }
  const errors = recordErrors(record);
  if (errors.length) return recordOnly(ctx, run, remoteId, record.title, describeErrors(errors));
  const hash = recordHash(record);

  // A clash with a concurrent apply (the same record in a replayed page, new tags met in another order)
  // rolls the transaction back; the next attempt sees the winner's rows. Any other database error
  // that is not the database being unreachable is this record's (a value no column takes): the record
  // fails, and the run goes on.
  for (let attempt = 1; ; attempt++) {
    const em = ctx.em.fork();
    let result: FollowUp;
    try {
      // A dataset created meanwhile by a concurrent apply makes this attempt clash; the next one looks it up.
      const mayExist = attempt > 1 || page.known.has(record.remoteId);
      const base = recordBaseName(record);
      const freeName = attempt === 1 && page.freeNames.has(base) ? base : null;
      result = await em.transactional((tx) => {
        shareProfileReads(page.reads, { em: tx });
        return writeRecord({ ...ctx, em: tx }, source, run, record, hash, page.organization, { mayExist, freeName });
      });
    } catch (err) {
      if (err instanceof RecordFailed) return recordOnly(ctx, run, remoteId, record.title, err.message);
      const clash = err instanceof UniqueConstraintViolationException || err instanceof DeadlockException;
      if (!clash) {
        const cause = recordDatabaseError(err);
        if (!cause) throw err;
        const { code, table, constraint } = err as Error & Record<string, string | undefined>;
        ctx.log.warn({ err: { type: (err as Error).name, code, table, constraint }, remoteId }, 'harvested record could not be stored');
        return recordOnly(ctx, run, remoteId, record.title, `could not be stored (${cause})`);
      }
      if (attempt >= 5) throw err;
      const replayed = await ctx.em.fork().findOne(HarvestRunRecord, { run: run.id, remoteId });
      if (replayed) return replayed.outcome;
      continue;
    }
    await followUp(ctx, search, result);
    return result.outcome;
  }
}

/** SQLSTATE classes of a database that is down, restarting, out of resources, or of a transaction to retry. */
/**
 * For a database error that the record itself caused (a constraint, a value out of range): a name for it
 * fit for the run's report (the constraint, else the error's class), never its SQL or values. Null for
 * anything else (the database unreachable, a lock timeout, not a database error), which is thrown so the
 * activity retries.
 */
function recordDatabaseError(err: unknown): string | null {
  // MikroORM wraps driver errors; raw queries can surface pg's own DatabaseError.
  if (!(err instanceof DriverException || err instanceof pg.DatabaseError) || isTransientDatabaseFailure(err)) return null;
  const { code, constraint } = err as Error & { code?: unknown; constraint?: unknown };
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return null;
  if (typeof constraint === 'string' && constraint) return constraint;
  return err instanceof DriverException ? `${err.constructor.name.replace(/Exception$/, '')} ${code}` : code;
}

/**
 * A record the source now says is not public (a refused item with `withdrawn`), whose dataset from this
 * source is active here: the dataset is made private (not deleted: its organization still sees it and
 * may want it) and its hash cleared, so the record's return as public is an update that makes it public
 * again. Outcome `updated`, its run record noting the reason ("withdrawn at the source: …"); a dataset
 * already withdrawn so (private, no hash) is `unchanged`. Without such a dataset (none, or deleted here),
 * null: the item fails with its reason, as any refused one. Counted once per run like any record, and
 * seen, so a full run does not also count it removed.
 */
async function withdraw(
  ctx: DomainContext,
  search: SearchBatches,
  source: HarvestSource,
  run: HarvestRun,
  remoteId: string,
  title: string | null,
  reason: string,
): Promise<HarvestOutcome | null> {
  const result = await ctx.em.fork().transactional(async (em) => {
    const dataset = await em.findOne(
      Dataset,
      { harvestSource: source.id, harvestRemoteId: remoteId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!dataset || dataset.state !== 'active') return null;
    const outcome: HarvestOutcome = dataset.private && dataset.harvestHash === null ? 'unchanged' : 'updated';
    if (outcome === 'unchanged') {
      await em.execute('update datasets set harvested_at = ? where id = ?', [new Date(), dataset.id]);
    } else {
      Object.assign(dataset, { private: true, harvestHash: null, harvestedAt: new Date() });
      await em.flush();
    }
    await insertRunRecord(em, run, remoteId, outcome, dataset.id, title ?? dataset.title ?? null, `withdrawn at the source: ${reason}`);
    return { outcome, datasetId: dataset.id, removedResourceIds: [], reprocessIds: [] } satisfies FollowUp;
  });
  if (!result) return null;
  await followUp(ctx, search, result);
  const row = await ctx.em.fork().findOneOrFail(HarvestRunRecord, { run: run.id, remoteId });
  return row.outcome;
}

/** A record that was refused or failed a rule: only its run record (a replay finds it and returns it). */
async function recordOnly(ctx: DomainContext, run: HarvestRun, remoteId: string, title: string | null, reason: string) {
  const em = ctx.em.fork();
  await insertRunRecord(em, run, remoteId, 'failed', null, title, reason);
  const row = await em.findOneOrFail(HarvestRunRecord, { run: run.id, remoteId });
  return row.outcome;
}

/**
 * After the commit: the pipeline again where what it processed changed, files of removed resources, and
 * the dataset into the page's search batches.
 */
async function followUp(ctx: DomainContext, search: SearchBatches, done: FollowUp) {
  if (!done.datasetId || (done.outcome !== 'created' && done.outcome !== 'updated')) return;
  if (done.removedResourceIds.length) await removeResourceFiles(ctx.storage, done.removedResourceIds);
  for (const id of done.reprocessIds) {
    const em = ctx.em.fork();
    const stale = await invalidateOutputs(em, id);
    await Promise.all(stale.map((key) => ctx.storage.remove(key)));
    await startPipeline({ ...ctx, em }, id);
  }
  search.add(done.datasetId);
}
