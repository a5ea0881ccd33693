import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Group, MetadataProfile } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { conflict, notFound, validationFailed, type FieldError } from '../errors.ts';
import { findByRaw, pgArray } from '../../db.ts';
import { byNameOrId } from '../ids.ts';
import { loadVisibleGroup } from '../groups/groups.ts';
import type { ProfileField } from './profiles-fields.ts';
import { fieldsFromJsonSchema, fieldsToJsonSchema, JSON_SCHEMA_DIALECT } from './profiles-json-schema.ts';

/**
 * Metadata profiles (issue 28 §1): a sysadmin defines the extra fields of datasets and resources for the
 * site, and for one organization. An organization's datasets get the site's fields, then its own. A name
 * both define is refused when either profile is saved (422 naming the field); should two saves race past
 * that check, the site's definition wins, so the site's rules are never loosened by an organization.
 */
export interface ProfileFields {
  dataset: ProfileField[];
  resource: ProfileField[];
}

/** What a PUT gives per kind: the declarative fields, or a JSON Schema of the supported subset (not both). */
export interface ProfileInput {
  datasetFields?: ProfileField[];
  resourceFields?: ProfileField[];
  datasetSchema?: Record<string, unknown>;
  resourceSchema?: Record<string, unknown>;
}

export const SITE_SCOPE = 'site';
const EMPTY: ProfileFields = { dataset: [], resource: [] };

/** Site fields first, then the organization's whose names the site does not use. */
function combine(site: ProfileFields, org: ProfileFields | null): ProfileFields {
  if (!org) return site;
  const merge = (a: ProfileField[], b: ProfileField[]) => [...a, ...b.filter((f) => !a.some((s) => s.name === f.name))];
  return { dataset: merge(site.dataset, org.dataset), resource: merge(site.resource, org.resource) };
}

const fieldsOf = (p: MetadataProfile | undefined): ProfileFields =>
  p ? { dataset: p.datasetFields ?? [], resource: p.resourceFields ?? [] } : EMPTY;

/**
 * The fields a dataset of this organization (null: none yet) has, the site's and the organization's:
 * what the write paths check, the form shows and the CKAN dicts place top-level, as ckanext-scheming does.
 */
export function profileFieldsFor(ctx: Pick<DomainContext, 'em'>, orgId: string | null): Promise<ProfileFields> {
  // Read once per unit of work (a request, a transaction): a write checks the dataset and each of its
  // resources against the same profiles. Saving a profile forgets what its unit of work read.
  const read = readFields.get(ctx.em) ?? new Map<string | null, Promise<ProfileFields>>();
  readFields.set(ctx.em, read);
  let fields = read.get(orgId);
  if (!fields) {
    fields = loadFields(ctx, orgId);
    read.set(orgId, fields);
    fields.catch(() => read.delete(orgId));
  }
  return fields;
}

const readFields = new WeakMap<object, Map<string | null, Promise<ProfileFields>>>();

/**
 * A transaction's unit of work takes what its request read before it began (package_create reads the
 * profile to place the dict's keys, then checks the dataset against it inside its transaction).
 */
export function carryProfileReads(request: Pick<DomainContext, 'em'>, transaction: Pick<DomainContext, 'em'>) {
  const read = readFields.get(request.em);
  if (read) readFields.set(transaction.em, new Map(read));
}

/**
 * The transaction reads through `unit`'s reads and adds to them: a harvest page's records, each in a
 * transaction of its own, read the profiles once for the page instead of once per record.
 */
export function shareProfileReads(unit: Pick<DomainContext, 'em'>, transaction: Pick<DomainContext, 'em'>) {
  const read = readFields.get(unit.em) ?? new Map<string | null, Promise<ProfileFields>>();
  readFields.set(unit.em, read);
  readFields.set(transaction.em, read);
}

async function loadFields(ctx: Pick<DomainContext, 'em'>, orgId: string | null): Promise<ProfileFields> {
  const rows = await findByRaw(ctx.em, MetadataProfile, `select * from metadata_profiles where scope = any(?::text[])`, [
    pgArray(orgId ? [SITE_SCOPE, orgId] : [SITE_SCOPE]),
  ]);
  const site = rows.find((r) => r.scope === SITE_SCOPE);
  const org = orgId ? rows.find((r) => r.scope === orgId) : undefined;
  return combine(fieldsOf(site), org ? fieldsOf(org) : null);
}

export function presentProfile(p: MetadataProfile | null, org: { id: string; name: string; title: string } | null) {
  return {
    scope: org ? ('organization' as const) : ('site' as const),
    organization: org,
    datasetFields: p?.datasetFields ?? [],
    resourceFields: p?.resourceFields ?? [],
    createdAt: p ? p.createdAt.toISOString() : null,
    updatedAt: p ? p.updatedAt.toISOString() : null,
  };
}

async function loadOrganization(ctx: DomainContext, nameOrId: string) {
  const org = await ctx.em.findOne(Group, { kind: 'organization', ...byNameOrId(nameOrId) });
  if (!org) throw notFound('Organization');
  return org;
}

const orgRef = (g: Group) => ({ id: g.id, name: g.name, title: g.title ?? g.name });

/** GET /admin/profiles: the site's profile and every organization's that has one. */
export async function listProfiles(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  const rows = await ctx.em.find(MetadataProfile, {}, { populate: ['organization'], orderBy: { createdAt: 'asc' } });
  const results = rows.map((r) => presentProfile(r, r.organization ? orgRef(r.organization as Group) : null));
  return { count: results.length, offset: 0, limit: results.length, results };
}

/** GET /admin/profiles/site, /admin/profiles/organizations/{nameOrId}: an undefined profile is an empty one. */
export async function getProfile(ctx: DomainContext, actor: Actor, orgNameOrId: string | null) {
  authorize(actor, 'site:administer');
  const org = orgNameOrId ? await loadOrganization(ctx, orgNameOrId) : null;
  const row = await ctx.em.findOne(MetadataProfile, { scope: org?.id ?? SITE_SCOPE });
  return presentProfile(row, org ? orgRef(org) : null);
}

/** The fields of one kind from a PUT, each error of its JSON Schema under `path`. */
function parsedFields(fields: ProfileField[] | undefined, schema: Record<string, unknown> | undefined, path: string, errors: FieldError[]) {
  if (schema === undefined) return fields ?? [];
  const fromSchema = fieldsFromJsonSchema(schema, path);
  if ('errors' in fromSchema) {
    errors.push(...fromSchema.errors);
    return [];
  }
  return fromSchema.fields;
}

/** The names `fields` shares with the other scope's profiles, as errors at `path.<i>.name`. */
function clashes(fields: ProfileField[], others: Array<{ fields: ProfileField[]; owner: string }>, path: string): FieldError[] {
  return fields.flatMap((f, i) => {
    const other = others.find((o) => o.fields.some((g) => g.name === f.name));
    return other ? [{ path: `${path}.${i}.name`, message: `"${f.name}" is already defined by ${other.owner}` }] : [];
  });
}

/**
 * PUT: the profile replaced as a whole (an omitted kind has no fields). Stored values are never touched:
 * a field removed or narrowed leaves what datasets hold in their `customFields`.
 */
export async function putProfile(ctx: DomainContext, actor: Actor, orgNameOrId: string | null, input: ProfileInput) {
  authorize(actor, 'site:administer');
  const org = orgNameOrId ? await loadOrganization(ctx, orgNameOrId) : null;
  const errors: FieldError[] = [];
  const dataset = parsedFields(input.datasetFields, input.datasetSchema, 'datasetSchema', errors);
  const resource = parsedFields(input.resourceFields, input.resourceSchema, 'resourceSchema', errors);
  if (errors.length) throw validationFailed(errors, 'The profile has invalid fields.');

  // The other side of a clash: for an organization, the site; for the site, every organization.
  const others = await ctx.em.find(MetadataProfile, org ? { scope: SITE_SCOPE } : { scope: { $ne: SITE_SCOPE } }, {
    populate: ['organization'],
  });
  const owners = others.map((o) => ({
    owner: o.organization ? `the profile of organization ${(o.organization as Group).name}` : 'the site profile',
    dataset: o.datasetFields ?? [],
    resource: o.resourceFields ?? [],
  }));
  const clash = [
    ...clashes(
      dataset,
      owners.map((o) => ({ owner: o.owner, fields: o.dataset })),
      'datasetFields',
    ),
    ...clashes(
      resource,
      owners.map((o) => ({ owner: o.owner, fields: o.resource })),
      'resourceFields',
    ),
  ];
  if (clash.length) throw validationFailed(clash, 'A field name is already used by another profile that applies to the same datasets.');

  const scope = org?.id ?? SITE_SCOPE;
  let row = await ctx.em.findOne(MetadataProfile, { scope });
  const created = !row;
  row ??= ctx.em.create(MetadataProfile, { scope, organization: org, datasetFields: [], resourceFields: [] });
  row.datasetFields = dataset;
  row.resourceFields = resource;
  readFields.delete(ctx.em);
  try {
    await ctx.em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw conflict('This profile was created at the same time by another request; try again.');
    throw err;
  }
  return { created, profile: presentProfile(row, org ? orgRef(org) : null) };
}

/** DELETE: the scope has no extra fields any more; the values datasets hold stay in their `customFields`. */
export async function deleteProfile(ctx: DomainContext, actor: Actor, orgNameOrId: string | null) {
  authorize(actor, 'site:administer');
  const org = orgNameOrId ? await loadOrganization(ctx, orgNameOrId) : null;
  const row = await ctx.em.findOne(MetadataProfile, { scope: org?.id ?? SITE_SCOPE });
  if (!row) throw notFound('Profile');
  readFields.delete(ctx.em);
  await ctx.em.removeAndFlush(row);
}

/** The stable address of a profile's JSON Schema (`$id`). */
export const profileSchemaPath = (orgName: string | null) =>
  orgName ? `/api/v1/profiles/organizations/${encodeURIComponent(orgName)}/schema.json` : '/api/v1/profiles/site/schema.json';

/**
 * The public JSON Schema (draft 2020-12) of the profile values a dataset may carry: at the site, or in
 * one organization (the site's fields and its own). It describes a dataset record or body: its
 * `customFields`, and each resource's. Only definitions, which are public as a form is; an organization
 * the caller may not see is 404.
 */
export async function profileJsonSchema(ctx: DomainContext, actor: Actor, orgName: string | null) {
  const org = orgName ? (await loadVisibleGroup(ctx, actor, 'organization', orgName)).group : null;
  const fields = await profileFieldsFor(ctx, org?.id ?? null);
  const site = ctx.config.site.name;
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `${ctx.config.http.publicUrl}${profileSchemaPath(org?.name ?? null)}`,
    title: org ? `Profile fields of ${org.title ?? org.name} datasets on ${site}` : `Profile fields of ${site} datasets`,
    description:
      'The `customFields` of a dataset and of its resources. Required fields are needed to publish; values kept from an earlier profile are allowed.',
    type: 'object',
    properties: {
      customFields: fieldsToJsonSchema(fields.dataset),
      resources: { type: 'array', items: { type: 'object', properties: { customFields: fieldsToJsonSchema(fields.resource) } } },
    },
  };
}
