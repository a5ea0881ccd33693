import type { EntityManager } from '@mikro-orm/postgresql';
import { Dataset, Resource, type HarvestOutcome, type HarvestRun, type HarvestSource } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { assignFields, DATASET_FIELDS, fieldNames } from '../datasets/field-table.ts';
import { fitHarvestedProfileValues } from '../metadata/profiles-enforce.ts';
import { applyDatasetMetadata, applyDistributionMetadata } from '../metadata/record-io.ts';
import { resolveTags } from '../datasets/references.ts';
import { RESOURCE_FIELDS } from '../resources/field-table.ts';
import { buildResource } from '../resources/resources.ts';
import { harvestCategories, harvestOrganization, type SourceOrganization } from './group-mirroring.ts';
import { baseName, freeDatasetName } from './names.ts';
import type { MappedRecord, MappedResource } from './record-rules.ts';

/** What the commit left to do outside the transaction. */
export interface FollowUp {
  outcome: HarvestOutcome;
  datasetId: string | null;
  removedResourceIds: string[];
  reprocessIds: string[];
}

export async function insertRunRecord(
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

/** What the page already knows about a record before its transaction. */
export interface RecordHints {
  /** False when no dataset of this source had the remote id as the page began: no lookup. */
  mayExist: boolean;
  /**
   * The record's base name when the page found no dataset holding it and no other record of the page
   * derives it: taken without the lock and the lookup. One taken meanwhile clashes at insert, and the
   * retry goes the locked way.
   */
  freeName: string | null;
}

/**
 * In the caller's transaction: the dataset of (source, remote id) created, updated, or left alone when
 * its hash is the record's, and the run's record of it.
 */
export async function writeRecord(
  tx: DomainContext,
  source: HarvestSource,
  run: HarvestRun,
  record: MappedRecord,
  hash: string,
  sourceOrg: SourceOrganization,
  { mayExist, freeName }: RecordHints,
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
      name: freeName ?? (await lockedFreeName(em, recordBaseName(record))),
      state: 'active',
      creator: null,
      publishedAt: now,
      searchVector: null,
      harvestSource: source.id,
      harvestRemoteId: record.remoteId,
    });
  // Sources write "" for what they do not know: unset here, where POST /packages would keep it.
  assignFields(DATASET_FIELDS, dataset, Object.fromEntries(fieldNames(DATASET_FIELDS).map((k) => [k, record[k] || null])));
  applyDatasetMetadata(dataset, { ...record.metadata, extras: record.extras, customFields: record.customFields }, true);
  dataset.ownerOrg = org;
  await fitHarvestedProfileValues(tx, dataset);
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
    record.resources.forEach((r, i) => buildResource(em, dataset, { ...r, ...distributionInput(r), urlType: 'link' }, i));
    return finish('created', dataset);
  }

  // Resources matched by URL: new ones added, changed ones updated in place, gone ones removed.
  const current = await em.find(Resource, { dataset: dataset.id });
  const byUrl = new Map(current.map((r) => [r.url ?? '', r]));
  const reprocessIds: string[] = [];
  record.resources.forEach((r, i) => {
    const old = byUrl.get(r.url);
    if (!old) return void buildResource(em, dataset, { ...r, ...distributionInput(r), urlType: 'link' }, i);
    byUrl.delete(r.url);
    const format = old.format ?? null;
    assignFields(RESOURCE_FIELDS, old, r);
    applyDistributionMetadata(old, distributionInput(r), true);
    old.position = i;
    if (old.format !== format && old.extras.pipeline) reprocessIds.push(old.id);
  });
  const removed = [...byUrl.values()];
  removed.forEach((r) => em.remove(r));
  return finish('updated', dataset, { removedResourceIds: removed.map((r) => r.id), reprocessIds });
}

export const recordBaseName = (record: Pick<MappedRecord, 'name' | 'title' | 'remoteId'>) =>
  baseName(record.name, record.title, record.remoteId);

/** A mapped resource's metadata as a resource write takes it. */
const distributionInput = (r: MappedResource) => ({ ...r.metadata, customExtras: r.customExtras });

/**
 * The first free name from `base`, with a transaction-scoped advisory lock on the base name taken first:
 * the records of a page that share a title (applied side by side) take their names one after the other,
 * each seeing the ones before committed, instead of all picking the same `base-n` and retrying.
 */
async function lockedFreeName(em: EntityManager, base: string): Promise<string> {
  await em.execute('select pg_advisory_xact_lock(hashtext(?))', [`dataset-name:${base}`]);
  return freeDatasetName(em, base);
}
