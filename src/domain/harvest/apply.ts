import { createHash } from 'node:crypto';
import { ConnectionException, DeadlockException, LockMode, DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { pgArray } from '../../db.ts';
import {
  Dataset,
  Group,
  HarvestRunRecord,
  Resource,
  type HarvestOutcome,
  type HarvestRun,
  type HarvestSource,
} from '../../entities/index.ts';
import type { HarvestItem, HarvestRecord } from './record.ts';
import type { DomainContext } from '../context.ts';
import { datasetLimitErrors, LINK_PROTOCOLS, tooLong } from '../datasets/limits.ts';
import { resolveTags } from '../datasets/references.ts';
import type { FieldError } from '../errors.ts';
import { invalidateOutputs } from '../pipeline/record.ts';
import { startPipeline } from '../pipeline/start.ts';
import { removeResourceFiles } from '../resources/file-removal.ts';
import { buildResource } from '../resources/resources.ts';
import { syncDatasetsSearch } from '../../search/sync.ts';
import { email } from '../users/fields.ts';
import { baseName, freeDatasetName, slugFrom } from './names.ts';

export { finishHarvestRun, harvestRunCounts, type HarvestRunCounts } from './runs.ts';

/**
 * Harvested records carry no license more often than not; CKAN's own "License not specified" stands in,
 * so the record can be active (a license is one of the publish requirements).
 */
const NO_LICENSE = 'notspecified';

/** A record as it is written: tags split and deduplicated, one resource per URL. Its hash decides `unchanged`. */
type MappedRecord = Omit<HarvestRecord, 'modified'>;

/**
 * The same record as CKAN would read it: a tag holding commas is CKAN's `tag_string`, so it is split
 * there (Almanac refuses commas in tag names, as CKAN does); tags trimmed and deduplicated; a resource
 * per URL, the first one listing it (a URL is unique within a dataset); no blank URLs.
 */
export function mapRecord(source: HarvestRecord): MappedRecord {
  const record = storable(source);
  const tags = [
    ...new Set(
      record.tags
        .flatMap((t) => t.split(','))
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ].sort(); // one order for every run: concurrent first uses of tags lock them in the same order
  const seen = new Set<string>();
  const resources = record.resources.map((r) => ({ ...r, url: r.url.trim() })).filter((r) => r.url && !seen.has(r.url) && seen.add(r.url));
  const { modified: _modified, ...rest } = record;
  // The record's page at the source is only provenance: one longer than its column is dropped, not a failure.
  const remoteUrl = record.remoteUrl && record.remoteUrl.length <= MAX_REMOTE_URL ? record.remoteUrl : null;
  return { ...rest, remoteUrl, tags, resources, licenseId: record.licenseId || NO_LICENSE };
}

/** The columns of harvest_run_records.remote_id / datasets.harvest_remote_id and datasets.harvest_remote_url. */
const MAX_REMOTE_ID = 1000;
const MAX_REMOTE_URL = 2000;

/**
 * The key a remote id is recorded under in the run: the id itself, or for one longer than its column
 * (which fails), its first 900 characters, `#` and a sha256 prefix of the whole, so the failure is recorded
 * once and a replay finds it.
 */
export function runRecordKey(remoteId: string): string {
  if (remoteId.length <= MAX_REMOTE_ID) return remoteId;
  return `${remoteId.slice(0, 900)}#${createHash('sha256').update(remoteId).digest('hex').slice(0, 32)}`;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text PostgreSQL can store: real catalogs hold unpaired surrogates (a JSON escape cut in half) and NUL
 * characters, which POST /packages refuses; a harvest cannot ask the source to mend them, so a lone
 * surrogate becomes U+FFFD and a NUL goes.
 */
function storable<T>(value: T): T {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd').replaceAll('\0', '') as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, storable(v)])) as T;
  }
  return value;
}

/** What POST /packages would refuse in this record, with the same messages (src/domain/datasets/limits.ts). */
export function recordErrors(r: MappedRecord): FieldError[] {
  const errors = datasetLimitErrors(r);
  const isUrl = (value: string, protocols: RegExp) => {
    try {
      return protocols.test(new URL(value).protocol.replace(/:$/, ''));
    } catch {
      return false;
    }
  };
  if (r.url && !isUrl(r.url, /^https?$/)) errors.push({ path: 'url', message: 'must be an http(s) URL' });
  for (const key of ['authorEmail', 'maintainerEmail'] as const) {
    if (r[key] && !email.safeParse(r[key]).success) errors.push({ path: key, message: 'must be an email address' });
  }
  r.resources.forEach((res, i) => {
    if (!isUrl(res.url, LINK_PROTOCOLS)) errors.push({ path: `resources.${i}.url`, message: 'must be an http(s) or ftp URL' });
  });
  return errors;
}

/** sha256 of the mapped record as canonical JSON (keys sorted): equal hashes, nothing to write. */
export function recordHash(r: MappedRecord): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(r)))
    .digest('hex');
}

const describe = (errors: FieldError[]) =>
  errors
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ')
    .slice(0, 1000);

/** What the commit left to do outside the transaction. */
interface FollowUp {
  outcome: HarvestOutcome;
  datasetId: string | null;
  removedResourceIds: string[];
  reprocessIds: string[];
}

class RecordFailed extends Error {}

/** Records of a page applied side by side (each holds a database connection while it writes). */
const APPLY_CONCURRENCY = 6;
/** Datasets per search sync: their keyword documents and points are written together. */
const SYNC_BATCH = 50;

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
  /** The source's organization, when it has one and it is active; its deletion mid-page is seen by the next page. */
  organization: { id: string } | null | 'deleted';
}

async function pageState(em: EntityManager, source: HarvestSource, run: HarvestRun, items: HarvestItem[]): Promise<PageState> {
  // An item that cannot be read throws again when it is taken, where the page's stop handles it.
  const keys = items.flatMap((item) => {
    try {
      return [itemKey(item)];
    } catch {
      return [];
    }
  });
  const rows = await em.execute<Array<{ remote_id: string; outcome: HarvestOutcome; dataset_id: string | null }>>(
    'select remote_id, outcome, dataset_id from harvest_run_records where run_id = ? and remote_id = any(?::text[])',
    [run.id, pgArray(keys)],
  );
  const known = await em.execute<Array<{ harvest_remote_id: string }>>(
    'select harvest_remote_id from datasets where harvest_source_id = ? and harvest_remote_id = any(?::text[])',
    [source.id, pgArray(keys)],
  );
  const orgId = source.organization ? (source.organization as { id: string }).id : null;
  const [org] = orgId ? await em.execute<Array<{ state: string }>>('select state from groups where id = ?', [orgId]) : [];
  return {
    done: new Map(rows.map((r) => [r.remote_id, { outcome: r.outcome, datasetId: r.dataset_id }])),
    known: new Set(known.map((r) => r.harvest_remote_id)),
    met: new Set(),
    organization: !orgId || !org ? null : org.state === 'active' ? { id: orgId } : 'deleted',
  };
}

const itemKey = (item: HarvestItem) => runRecordKey(storable(item.kind === 'record' ? item.record.remoteId : item.remoteId));

/**
 * The page's datasets on their way into search: each full batch is synced as soon as it is full, one
 * batch at a time, and `flush` syncs the rest and answers the first failure.
 */
class SearchBatches {
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
  if (errors.length) return recordOnly(ctx, run, remoteId, record.title, describe(errors));
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
      result = await em.transactional((tx) => writeRecord({ ...ctx, em: tx }, source, run, record, hash, page.organization, mayExist));
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
const TRANSIENT_SQLSTATE = /^(08|40|53|55|57|58|XX)/;

/**
 * For a database error that the record itself caused (a constraint, a value out of range): a name for it
 * fit for the run's report (the constraint, else the error's class), never its SQL or values. Null for
 * anything else (the database unreachable, a lock timeout, not a database error), which is thrown so the
 * activity retries.
 */
function recordDatabaseError(err: unknown): string | null {
  // MikroORM wraps driver errors; raw queries can surface pg's own DatabaseError.
  if (!(err instanceof DriverException || err instanceof pg.DatabaseError) || err instanceof ConnectionException) return null;
  const { code, constraint } = err as Error & { code?: unknown; constraint?: unknown };
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || TRANSIENT_SQLSTATE.test(code)) return null;
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

async function insertRunRecord(
  em: EntityManager,
  run: HarvestRun,
  remoteId: string,
  outcome: HarvestOutcome,
  datasetId: string | null,
  title: string | null,
  reason: string | null,
) {
  await em.execute(
    `insert into harvest_run_records (run_id, remote_id, outcome, dataset_id, title, reason, at)
     values (?, ?, ?, ?, ?, ?, now()) on conflict (run_id, remote_id) do nothing`,
    [run.id, remoteId, outcome, datasetId, title?.slice(0, 1000) ?? null, reason?.slice(0, 1000) ?? null],
  );
}

async function writeRecord(
  tx: DomainContext,
  source: HarvestSource,
  run: HarvestRun,
  record: MappedRecord,
  hash: string,
  sourceOrg: PageState['organization'],
  mayExist: boolean,
): Promise<FollowUp> {
  const em = tx.em;
  const now = new Date();
  const existing = mayExist
    ? await em.findOne(
        Dataset,
        { harvestSource: source.id, harvestRemoteId: record.remoteId },
        { populate: ['tags', 'groups', 'ownerOrg'] },
      )
    : null;
  const finish = async (outcome: HarvestOutcome, dataset: Dataset, extra: Partial<FollowUp> = {}) => {
    await em.flush();
    await insertRunRecord(em, run, record.remoteId, outcome, dataset.id, record.title, null);
    return { outcome, datasetId: dataset.id, removedResourceIds: [], reprocessIds: [], ...extra };
  };

  if (existing && existing.harvestHash === hash && existing.state === 'active') {
    // Only when it was last seen: updatedAt is CKAN's metadata_modified, which downstream harvesters compare.
    await em.execute('update datasets set harvested_at = ? where id = ?', [now, existing.id]);
    return finish('unchanged', existing);
  }

  const org = await harvestOrganization(em, source, record, sourceOrg);
  const dataset =
    existing ??
    em.create(Dataset, {
      name: await lockedFreeName(em, baseName(record.name, record.title, record.remoteId)),
      state: 'active',
      creator: null,
      publishedAt: now,
      searchVector: null,
      harvestSource: source.id,
      harvestRemoteId: record.remoteId,
    });
  dataset.title = record.title || null;
  dataset.notes = record.notes || null;
  dataset.licenseId = record.licenseId;
  dataset.private = record.private;
  dataset.author = record.author || null;
  dataset.authorEmail = record.authorEmail || null;
  dataset.maintainer = record.maintainer || null;
  dataset.maintainerEmail = record.maintainerEmail || null;
  dataset.version = record.version || null;
  dataset.url = record.url || null;
  dataset.ownerOrg = org;
  dataset.tags.set(await resolveTags(tx, record.tags));
  dataset.groups.set(await harvestCategories(em, record.groups));
  dataset.harvestRemoteUrl = record.remoteUrl;
  dataset.harvestedAt = now;
  dataset.harvestHash = hash;
  if (dataset.state !== 'active') {
    // Back at the source after it was removed (or deleted here by hand): active again.
    dataset.state = 'active';
    dataset.deletedAt = null;
    dataset.publishedAt ??= now;
  }
  if (!existing) {
    record.resources.forEach((r, i) => buildResource(em, dataset, { ...r, urlType: 'link' }, i));
    return finish('created', dataset);
  }

  // Resources matched by URL: new ones added, changed ones updated in place, gone ones removed.
  const current = await em.find(Resource, { dataset: dataset.id });
  const byUrl = new Map(current.map((r) => [r.url ?? '', r]));
  const reprocessIds: string[] = [];
  record.resources.forEach((r, i) => {
    const old = byUrl.get(r.url);
    if (!old) return void buildResource(em, dataset, { ...r, urlType: 'link' }, i);
    byUrl.delete(r.url);
    const format = r.format?.trim().toUpperCase() || null;
    if ((old.format ?? null) !== format && old.extras.pipeline) reprocessIds.push(old.id);
    Object.assign(old, { name: r.name ?? null, description: r.description ?? null, format, mimetype: r.mimetype ?? null, position: i });
  });
  const removed = [...byUrl.values()];
  removed.forEach((r) => em.remove(r));
  return finish('updated', dataset, { removedResourceIds: removed.map((r) => r.id), reprocessIds });
}

/**
 * The first free name from `base`, with a transaction-scoped advisory lock on the base name taken first:
 * the records of a page that share a title (applied side by side) take their names one after the other,
 * each seeing the ones before committed, instead of all picking the same `base-n` and retrying.
 */
async function lockedFreeName(em: EntityManager, base: string): Promise<string> {
  await em.execute('select pg_advisory_xact_lock(hashtext(?))', [`dataset-name:${base}`]);
  return freeDatasetName(em, base);
}

/**
 * dcat-us and dcat-ap: the source's organization. ckan: the record's organization, mirrored by name
 * (created with its title and description when missing here), else the source's. None: the record fails.
 */
async function harvestOrganization(
  em: EntityManager,
  source: HarvestSource,
  record: MappedRecord,
  sourceOrg: PageState['organization'],
): Promise<Group> {
  const remote = source.type === 'ckan' ? record.organization : null;
  if (remote) {
    const name = slugFrom(remote.name);
    if (!name) throw new RecordFailed(`organization: "${remote.name}" cannot be an organization name here`);
    const org = await mirrorGroup(em, 'organization', name, remote.title, remote.description);
    if (org.state !== 'active') throw new RecordFailed(`organization: "${name}" is deleted here`);
    return org;
  }
  if (!sourceOrg) throw new RecordFailed('no organization: the record names none and the source has none');
  if (sourceOrg === 'deleted') throw new RecordFailed("no organization: the source's organization is deleted");
  return em.getReference(Group, sourceOrg.id);
}

/** Categories by name, created when missing; deleted ones are left out. */
async function harvestCategories(em: EntityManager, groups: HarvestRecord['groups']): Promise<Group[]> {
  const found: Group[] = [];
  for (const g of [...groups].sort((a, b) => a.name.localeCompare(b.name))) {
    const name = slugFrom(g.name);
    if (!name) continue;
    const category = await mirrorGroup(em, 'category', name, g.title, null);
    if (category.state === 'active' && !found.includes(category)) found.push(category);
  }
  return found;
}

/** A group by kind and name, inserted when missing (concurrent runs meet in the unique (kind, name)). */
async function mirrorGroup(em: EntityManager, kind: 'organization' | 'category', name: string, title: string, description: string | null) {
  await em.execute(
    `insert into groups (id, created_at, updated_at, kind, name, title, description, state)
     values (gen_random_uuid(), now(), now(), ?, ?, ?, ?, 'active') on conflict (kind, name) do nothing`,
    [kind, name, (title || name).slice(0, 300), description],
  );
  return em.findOneOrFail(Group, { kind, name });
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
