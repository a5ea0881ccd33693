import type { ZodType, z } from 'zod';
import { DATASET_FIELDS } from '../../domain/datasets/field-table.ts';
import { validationFailed } from '../../domain/errors.ts';
import { DATASET_RECORD } from '../../domain/metadata/dataset-record.ts';
import { extraText, withExtras } from '../../domain/metadata/extras.ts';
import { RESOURCE_FIELDS } from '../../domain/resources/field-table.ts';
import { ckanDatasetMetadata, ckanResourceMetadata } from '../../harvest/readers/ckan-record.ts';
import { list, object } from '../../harvest/values.ts';
import { fieldErrors } from '../../http/validate.ts';

/**
 * A CKAN package or resource dict read INTO the body REST takes (camelCase, POST /packages's and
 * PUT /resources/{id}'s), then checked by REST's own schema, so a write means the same on both entry
 * points. The record, extras and profile fields are read by the CKAN harvest reader (ckan-record.ts):
 * one mapping of CKAN's keys, in and out. A value CKAN sends as empty text (`"author": ""`) is unset.
 */

/** Parameters of the write actions themselves: never a profile field's value. */
const DATASET_ACTION_KEYS = new Set(['tag_string', 'return_id_only', 'match', 'filter', 'update', 'include', 'force', 'clear_upload']);
const RESOURCE_ACTION_KEYS = new Set(['upload', 'clear_upload', 'package_id', 'force']);

const without = (dict: Record<string, unknown>, keys: ReadonlySet<string>) =>
  Object.fromEntries(Object.entries(dict).filter(([k]) => !keys.has(k)));
const unsetIfEmpty = (v: unknown) => (v === '' ? null : v);

/** CKAN's boolean validator, for a value that came as form text. */
export function flag(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  if (['true', 'yes', 'on', '1', 't', 'y'].includes(s)) return true;
  if (['false', 'no', 'off', '0', 'f', 'n', ''].includes(s)) return false;
  return v;
}

/** `tags` as [{name}] (or names), else `tag_string` ("a,b"); undefined when neither is sent. */
export function tagNames(dict: Record<string, unknown>): unknown[] | undefined {
  if (dict.tags !== undefined && dict.tags !== null) {
    return list(dict.tags).map((t) => (typeof t === 'string' ? t : (object(t)?.name ?? object(t)?.display_name ?? t)));
  }
  if (typeof dict.tag_string === 'string')
    return dict.tag_string
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  return undefined;
}

/** Profile fields to place as such; every other key of the dict a profile defines nothing for. */
export interface ProfileNames {
  /** The profile's field names; empty when no profile applies (then any key is a profile value, as in REST). */
  fields: ReadonlySet<string>;
}

/**
 * The REST body of a package dict. `ownerOrg` and `groups` come resolved (package-writes.ts);
 * `complete` sends every field the dict leaves out as null, for CKAN's full replacement.
 */
export function datasetBody(
  dict: Record<string, unknown>,
  refs: { ownerOrg?: string | null; groups?: string[] },
  profile: ProfileNames,
  complete: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (dict.name !== undefined || complete) body.name = unsetIfEmpty(dict.name ?? null);
  for (const [key, field] of Object.entries(DATASET_FIELDS)) {
    const value = dict[field.ckan];
    if (value !== undefined || complete) body[key] = field.kind === 'flag' ? (flag(value) ?? false) : unsetIfEmpty(value ?? null);
  }
  if (refs.ownerOrg !== undefined || complete) body.ownerOrg = refs.ownerOrg ?? null;
  if (refs.groups !== undefined) body.groups = refs.groups;
  const tags = tagNames(dict);
  if (tags !== undefined) body.tags = tags;
  const { metadata, extras, customFields } = ckanDatasetMetadata(without(dict, DATASET_ACTION_KEYS));
  if (complete) for (const key of Object.keys(DATASET_RECORD)) body[key] = null;
  Object.assign(body, metadata);
  // With a profile, a key it does not define is kept as an extra, as a harvest keeps it, not refused.
  const { placed, others } = splitByProfile(customFields, profile);
  if (dict.extras !== undefined || others.length || complete) body.extras = withExtras(extras, others);
  if (Object.keys(customFields).length || complete) body.customFields = placed;
  return body;
}

function splitByProfile(values: Record<string, unknown>, profile: ProfileNames) {
  if (profile.fields.size === 0) return { placed: values, others: [] };
  const placed: Record<string, unknown> = {};
  const others: Array<{ key: string; value: string }> = [];
  for (const [key, value] of Object.entries(values)) {
    if (profile.fields.has(key)) placed[key] = value;
    else others.push({ key, value: extraText(value) });
  }
  return { placed, others };
}

/**
 * The REST body of a resource dict. `upload` says the resource holds a file of this site: a file sent
 * with the call, or an upload resource that stays one. A dict of another site's upload (its `url` that
 * site's download) is a link to it.
 */
export function resourceBody(dict: Record<string, unknown>, profile: ProfileNames, upload: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(RESOURCE_FIELDS)) body[key] = unsetIfEmpty(dict[field.ckan] ?? null);
  if (upload) body.urlType = 'upload';
  else Object.assign(body, { urlType: 'link', url: unsetIfEmpty(dict.url ?? null) });
  const { metadata, customExtras } = ckanResourceMetadata(without(dict, RESOURCE_ACTION_KEYS));
  Object.assign(body, metadata);
  // The reader keeps every other key as a free extra; the profile's fields are profile values.
  const customFields: Record<string, unknown> = {};
  body.customExtras = customExtras.filter((e) => {
    if (!profile.fields.has(e.key)) return true;
    customFields[e.key] = dict[e.key];
    return false;
  });
  body.customFields = customFields;
  return body;
}

/** Checks a body with REST's schema; its failures name REST's fields (envelope.ts gives them CKAN's keys). */
export function parseBody<T extends ZodType>(schema: T, body: unknown, prefix = ''): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationFailed(fieldErrors(parsed.error, prefix), 'The request has invalid fields.');
  return parsed.data;
}
