import { isDeepStrictEqual } from 'node:util';
import { Group, type Resource } from '../../entities/index.ts';
import type { Actor } from '../../domain/actor.ts';
import { groupReference, loadDatasetBeforeWrite } from '../../domain/catalog/writable-dataset.ts';
import { inOneTransaction } from '../../domain/after-commit.ts';
import type { DomainContext } from '../../domain/context.ts';
import type { CatalogDataset } from '../../domain/catalog/datasets.ts';
import { publishDataset, updateDataset } from '../../domain/datasets/lifecycle.ts';
import { DomainError, validationFailed, type FieldError } from '../../domain/errors.ts';
import { byNameOrId } from '../../domain/ids.ts';
import { profileFieldsFor } from '../../domain/metadata/profiles.ts';
import { addResource, deleteResource, reorderResources, replaceResource, type ResourceInput } from '../../domain/resources/resources.ts';
import { list, object } from '../../harvest/values.ts';
import { DatasetFields, ResourceBody } from '../v1/packages/schema.ts';
import { packageDict, resourceDict } from './package-dict.ts';
import { datasetBody, parseBody, resourceBody, type ProfileNames } from './package-input.ts';

/**
 * What package_update, package_patch and package_revise share: a CKAN dict written over a dataset with
 * REST's own domain functions (updateDataset, the resource writes, publishDataset), each with its rule.
 */

export type Dict = Record<string, unknown>;

/** The dataset's CKAN dict as package_show gives it (a draft too, to those who may see it). */
export async function currentDict(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const loaded = await loadDatasetBeforeWrite(ctx, actor, nameOrId);
  return { loaded, dict: packageDict(loaded) as unknown as Dict };
}

/** The dict after a write, read again from the database (the writes' own transactions changed it). */
export async function freshDict(ctx: DomainContext, actor: Actor, id: string): Promise<Dict> {
  ctx.em.clear();
  return packageDict(await loadDatasetBeforeWrite(ctx, actor, id)) as unknown as Dict;
}

/** The profile fields of the organization a dict names, for placing its top-level keys. */
export async function profileNamesFor(ctx: DomainContext, orgRef: string | null | undefined) {
  const org = orgRef ? await ctx.em.findOne(Group, { kind: 'organization', ...byNameOrId(orgRef) }) : null;
  const fields = await profileFieldsFor(ctx, org?.id ?? null);
  const names = (list: Array<{ name: string }>): ProfileNames => ({ fields: new Set(list.map((f) => f.name)) });
  return { orgId: org?.id, dataset: names(fields.dataset), resource: names(fields.resource) };
}

/**
 * `owner_org` (an id or a name) and `groups` ([{name}|{id}] or names) as references here. A dict from
 * another site (a dump) names its groups by that site's ids: the name of the same dict's `organization`
 * or group stands in for an id this site does not have.
 */
export async function groupRefs(ctx: DomainContext, dict: Dict) {
  const refs: { ownerOrg?: string | null; groups?: string[] } = {};
  const org = object(dict.organization);
  const owner = typeof dict.owner_org === 'string' && dict.owner_org ? dict.owner_org : null;
  if (owner) {
    const name = org && org.id === owner && typeof org.name === 'string' ? org.name : null;
    refs.ownerOrg = await groupReference(ctx, 'organization', { id: owner, name });
  } else if (org) {
    refs.ownerOrg = await groupReference(ctx, 'organization', { id: org.id as string, name: org.name as string });
  } else if ('owner_org' in dict) {
    refs.ownerOrg = null;
  }
  if (dict.groups !== undefined && dict.groups !== null) {
    refs.groups = [];
    for (const g of list(dict.groups)) {
      const ref =
        typeof g === 'string' ? g : await groupReference(ctx, 'category', { id: object(g)?.id as string, name: object(g)?.name as string });
      if (ref) refs.groups.push(ref);
    }
  }
  return refs;
}

/**
 * Whether a resource dict stays an upload of this site: a file comes with the call, or it is sent back
 * as one (`url_type: "upload"`) for a resource that is one here, or with no URL yet. Any other URL is a link.
 */
export const staysUpload = (dict: Dict, existing?: Pick<Resource, 'urlType'>) =>
  dict.url_type === 'upload' && (existing?.urlType === 'upload' || !dict.url);

interface WantedResource {
  id?: string;
  input: ResourceInput;
  /** Sent back as it is: not written again (its dates and pipeline stay). */
  unchanged?: boolean;
}

/** An existing resource as its dict would be read back, to tell an unchanged one. */
function asSent(r: Resource, profile: ProfileNames): unknown {
  try {
    return parseBody(ResourceBody, resourceBody(resourceDict(r) as unknown as Dict, profile, r.urlType === 'upload'));
  } catch {
    return undefined;
  }
}

/** Each resource of a dict, checked by REST's schema before anything is written (errors under `resources.<i>`). */
function wantedResources(dicts: unknown[], current: Resource[], profile: ProfileNames): WantedResource[] {
  const byId = new Map(current.map((r) => [r.id, r]));
  const errors: FieldError[] = [];
  const wanted: WantedResource[] = [];
  for (const [i, value] of dicts.entries()) {
    const dict = object(value) ?? {};
    const existing = typeof dict.id === 'string' ? byId.get(dict.id) : undefined;
    try {
      const input = parseBody(ResourceBody, resourceBody(dict, profile, staysUpload(dict, existing)), `resources.${i}`);
      wanted.push({ id: existing?.id, input, unchanged: existing && isDeepStrictEqual(asSent(existing, profile), input) });
    } catch (err) {
      if (!(err instanceof DomainError) || !err.errors) throw err;
      errors.push(...err.errors);
    }
  }
  // The domain refuses a URL twice in a dataset: found here, before the first write, not after some.
  const urls = wanted.map((w) => (w.input.urlType === 'link' ? w.input.url : null));
  urls.forEach((url, i) => {
    if (url && urls.indexOf(url) !== i) errors.push({ path: `resources.${i}.url`, message: 'is already used in this dataset' });
  });
  if (errors.length) throw validationFailed(errors);
  return wanted;
}

/**
 * CKAN's resource list save: a resource the dict names by id is replaced (when it changed), one without
 * an id is added, one left out is deleted, then the order is the dict's. Deletions go first, so a URL
 * moved to a new resource is free by then.
 */
async function writeResources(ctx: DomainContext, actor: Actor, datasetId: string, current: Resource[], wanted: WantedResource[]) {
  const kept = new Set(wanted.flatMap((w) => (w.id ? [w.id] : [])));
  for (const r of current) if (!kept.has(r.id)) await deleteResource(ctx, actor, r.id);
  const order: string[] = [];
  for (const w of wanted) {
    if (w.id) {
      if (!w.unchanged) await replaceResource(ctx, actor, w.id, w.input);
      order.push(w.id);
    } else {
      order.push((await addResource(ctx, actor, datasetId, w.input)).id);
    }
  }
  const positions = current.filter((r) => kept.has(r.id)).map((r) => r.id);
  if (!isDeepStrictEqual(order, positions) && order.length > 1) await reorderResources(ctx, actor, datasetId, order);
}

/**
 * package_update's write of `dict` over the dataset `loaded`: its fields all replaced (one left out is
 * cleared), but `name`, `private`, `owner_org`, `tags`, `groups`, `extras` and `resources` are kept when
 * left out, as CKAN 2.10 keeps them. `state: "active"` publishes a draft; an active dataset does not go back.
 */
export async function writeDataset(ctx: DomainContext, actor: Actor, loaded: CatalogDataset, sent: Dict): Promise<Dict> {
  const before = packageDict(loaded) as unknown as Dict;
  const dict: Dict = { ...sent };
  // CKAN clears a left-out column only where its model says `remove_if_not_provided` (ckan/model/package.py):
  // `name` and `private` are not among them, so a script that leaves `private` out never publishes a private dataset.
  for (const key of ['name', 'private', 'owner_org', 'groups', 'extras'] as const) if (!(key in dict)) dict[key] = before[key];
  if (!('tags' in dict) && !('tag_string' in dict)) dict.tags = before.tags;
  if (!('owner_org' in sent) && 'organization' in sent) delete dict.owner_org;
  const state = dict.state ?? loaded.dataset.state;
  if (state !== 'active' && state !== 'draft') {
    throw validationFailed([{ path: 'state', message: 'must be "active" or "draft"; package_delete deletes a dataset' }]);
  }
  if (state === 'draft' && loaded.dataset.state === 'active') {
    throw validationFailed([{ path: 'state', message: 'an active dataset cannot go back to draft' }]);
  }
  const refs = await groupRefs(ctx, dict);
  const profile = await profileNamesFor(ctx, refs.ownerOrg);
  const input = parseBody(DatasetFields, datasetBody(dict, refs, profile.dataset, true));
  const wanted = dict.resources === undefined ? null : wantedResources(list(dict.resources), loaded.resources, profile.resource);

  const id = loaded.dataset.id;
  // One change, as CKAN's: a resource refused after others were written takes them all back.
  await inOneTransaction(ctx, async (tx) => {
    await updateDataset(tx, actor, id, input);
    if (wanted) await writeResources(tx, actor, id, loaded.resources, wanted);
    if (state === 'active' && loaded.dataset.state === 'draft') await publishDataset(tx, actor, id);
  });
  return freshDict(ctx, actor, id);
}
