import { createDraft, deleteDataset, insertDataset, type KeptIds } from '../../../domain/datasets/lifecycle.ts';
import { isUuid } from '../../../domain/ids.ts';
import { can } from '../../../policies/index.ts';
import { validationFailed, type FieldError } from '../../../domain/errors.ts';
import { addResource } from '../../../domain/resources/resources.ts';
import { list, object } from '../../../harvest/values.ts';
import { CreateDatasetBody, DatasetFields } from '../../v1/packages/schema.ts';
import { filterGlobs, mergeAt, mergeDict, ReviseError, unmatched, unmatchedAt } from '../dict-revise.ts';
import { datasetBody, parseBody, resourceBody } from '../package-input.ts';
import { packageDict } from '../package-dict.ts';
import { currentDict, freshDict, groupRefs, profileNamesFor, staysUpload, writeDataset, type Dict } from '../package-write.ts';
import type { ActionParams } from '../params.ts';
import { required, type Action } from './action.ts';
import { resourceWriteActions } from './resource-writes.ts';
import { parseJsonText } from '../../../http/safe-json.ts';

/**
 * CKAN's write actions on datasets: each reads the CKAN dict into REST's body (package-input.ts) and
 * calls the domain function POST/PUT/DELETE /packages call, so the same rule decides and the same
 * checks refuse. A draft is CKAN 2.9's `state: "draft"`.
 */

/** A parameter CKAN reads as JSON when it comes as text (a form field, the ckanapi CLI's `key=value`). */
function jsonOrText(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{"]/.test(value)) return value;
  try {
    return parseJsonText(value);
  } catch {
    return value;
  }
}

/** The call's parameters as the CKAN dict they are; form text where JSON was expected is read as JSON. */
const dictOf = (params: ActionParams): Dict =>
  Object.fromEntries(
    Object.entries(params.raw).map(([k, v]) => [k, ['resources', 'tags', 'groups', 'extras'].includes(k) ? jsonOrText(v) : v]),
  );

/**
 * The dict's own ids and its resources', for a caller who may keep them; CKAN ignores them from anyone
 * else, and so does this. Almanac's ids are UUIDs.
 */
function keptIds(dict: Dict): KeptIds {
  const errors: FieldError[] = [];
  const uuid = (value: unknown, path: string) => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
    errors.push({ path, message: 'Must be a UUID' });
    return undefined;
  };
  const kept = {
    id: uuid(dict.id, 'id'),
    resourceIds: list(dict.resources).map((r, i) => uuid(object(r)?.id, `resources.${i}.id`)),
  };
  if (errors.length) throw validationFailed(errors);
  return kept;
}

const packageCreate: Action = {
  help:
    'Creates a dataset from a CKAN package dict (name, title, owner_org by name or id, license_id, private, tags [{name}], ' +
    'groups [{name}|{id}], extras [{key, value}], the record keys and profile fields, inline resources); state "draft" makes a draft. ' +
    'A sysadmin’s `id` (a UUID) and resources’ ids are kept, as a dump had them; anyone else’s are ignored, as CKAN does.',
  write: true,
  async run({ domain, actor, params }) {
    const dict = dictOf(params);
    const refs = await groupRefs(domain, dict);
    const profile = await profileNamesFor(domain, refs.ownerOrg);
    // The organization as read, by id: the create finds it again without asking the database.
    const body = datasetBody(dict, { ...refs, ownerOrg: profile.orgId ?? refs.ownerOrg }, profile.dataset, false);
    const resources = list(dict.resources).map((r) => {
      const rd = object(r) ?? {};
      return resourceBody(rd, profile.resource, staysUpload(rd));
    });
    if (dict.state !== 'draft') {
      const input = parseBody(CreateDatasetBody, { ...body, resources });
      // The dict of the entities as committed: reading them back would cost as much as the write.
      return packageDict(await insertDataset(domain, actor, input, can(actor, 'dataset:keep-ids') ? keptIds(dict) : {}));
    }
    const inputs = parseBody(DatasetFields.extend({ resources: CreateDatasetBody.shape.resources }), { ...body, resources });
    const { resources: wanted = [], ...fields } = inputs;
    const draft = await createDraft(domain, actor, fields);
    // A draft's resources are added one by one: the first refused takes the draft away again.
    try {
      for (const r of wanted) await addResource(domain, actor, draft.id, r);
    } catch (err) {
      await deleteDataset(domain, actor, draft.id);
      throw err;
    }
    return freshDict(domain, actor, draft.id);
  },
};

const packageUpdate: Action = {
  help:
    'Replaces a dataset with a CKAN package dict (package_show’s, edited): a field left out is cleared; owner_org, tags, groups, ' +
    'extras and resources left out are kept. Resources are matched by id: changed ones replaced, new ones added, missing ones deleted. ' +
    'state "active" publishes a draft.',
  write: true,
  async run({ domain, actor, params }) {
    const { loaded } = await currentDict(domain, actor, required(params, 'id', 'name'));
    return writeDataset(domain, actor, loaded, dictOf(params));
  },
};

const packagePatch: Action = {
  help: 'Changes the fields given and keeps the others: package_show, the given keys over it, package_update (as CKAN derives it).',
  write: true,
  async run({ domain, actor, params }) {
    const { loaded, dict } = await currentDict(domain, actor, required(params, 'id', 'name'));
    return writeDataset(domain, actor, loaded, { ...dict, ...dictOf(params), id: dict.id });
  },
};

const packageDelete: Action = {
  help: 'Deletes a dataset: an active one is soft-deleted (a sysadmin may restore it through REST); a draft is removed for good.',
  write: true,
  async run({ domain, actor, params }) {
    await deleteDataset(domain, actor, required(params, 'id', 'name'));
    return null;
  },
};

/** The `match__…` and `update__…` flattened keys of a call, by their path. */
const flattened = (raw: Dict, prefix: string) =>
  Object.entries(raw)
    .filter(([k]) => k.startsWith(`${prefix}__`))
    .map(([k, v]) => [k.slice(prefix.length + 2), jsonOrText(v)] as const);

const patterns = (value: unknown): string[] =>
  list(typeof value === 'string' && !value.trim().startsWith('[') ? value.split(',') : jsonOrText(value))
    .map((p) => String(p).trim())
    .filter(Boolean);

const packageRevise: Action = {
  help:
    'CKAN’s package_revise: match (dict, or match__<key>) names the dataset and must hold; filter removes by glob ("-resources__1", ' +
    '"+title", "-*"); update (dict, or update__<path>, update__resources__extend) merges; include filters the answer. Answers {package}.',
  write: true,
  async run({ domain, actor, params }) {
    const raw = params.raw as Dict;
    const match = object(jsonOrText(raw.match)) ?? {};
    const matchKeys = flattened(raw, 'match');
    const nameOrId = [match.id, matchKeys.find(([k]) => k === 'id')?.[1], match.name, matchKeys.find(([k]) => k === 'name')?.[1]].find(
      (v): v is string => typeof v === 'string' && v !== '',
    );
    if (!nameOrId) throw validationFailed([{ path: 'match__id', message: 'Missing value' }]);
    const { loaded, dict } = await currentDict(domain, actor, nameOrId);
    const revised = structuredClone(dict);
    const fail = (path: string, err: unknown): never => {
      if (err instanceof ReviseError) throw validationFailed([{ path, message: err.message }]);
      throw err;
    };
    const mismatches: FieldError[] = [];
    try {
      for (const p of unmatched(dict, match)) mismatches.push({ path: 'match', message: p.join('__') });
      for (const [k, v] of matchKeys.sort())
        for (const p of unmatchedAt(dict, k, v)) mismatches.push({ path: 'match', message: p.join('__') });
    } catch (err) {
      fail('match', err);
    }
    if (mismatches.length) throw validationFailed(mismatches);
    if (raw.filter !== undefined) {
      filterGlobs(revised, patterns(raw.filter));
      revised.id = dict.id;
    }
    if (raw.update !== undefined) {
      try {
        mergeDict(revised, jsonOrText(raw.update));
      } catch (err) {
        fail('update', err);
      }
    }
    // Extensions first, so a new resource can be reached by its index in the same call.
    const updates = flattened(raw, 'update').sort(
      ([a], [b]) => Number(b.endsWith('extend')) - Number(a.endsWith('extend')) || a.localeCompare(b),
    );
    for (const [k, v] of updates) {
      try {
        mergeAt(revised, k, v);
      } catch (err) {
        fail(`update__${k}`, err);
      }
    }
    const result: Dict = { package: await writeDataset(domain, actor, loaded, revised) };
    if (raw.include !== undefined) filterGlobs(result, patterns(raw.include));
    return result;
  },
};

/** CKAN's write actions on datasets and their resources (package_*, resource_*). */
export const packageWriteActions: Record<string, Action> = {
  package_create: packageCreate,
  package_update: packageUpdate,
  package_patch: packagePatch,
  package_delete: packageDelete,
  package_revise: packageRevise,
  ...resourceWriteActions,
};
