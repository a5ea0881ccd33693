import type { Dataset, Resource } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { validationFailed, type FieldError } from '../errors.ts';
import { extraText, withExtras, type Extra } from './extras.ts';
import { profileValueErrors, requiredMissing, valueError } from './profiles-fields.ts';
import { profileFieldsFor } from './profiles.ts';

/**
 * Where the profiles are enforced: every write of a dataset or a resource (REST, the web form, anything
 * calling the domain's writes) and publishing. Drafts may be incomplete: a required field is needed of
 * an active dataset and at publish, like licenseId; a value of the wrong type or outside the choices is
 * refused at any state.
 */

const orgIdOf = (dataset: Dataset) => (dataset.ownerOrg ? (dataset.ownerOrg as { id: string }).id : null);

/** 422 naming `customFields.<name>` for what the write changed that breaks the dataset's profile. */
export async function assertDatasetProfile(ctx: DomainContext, dataset: Dataset, before: Record<string, unknown>) {
  const { dataset: fields } = await profileFieldsFor(ctx, orgIdOf(dataset));
  const errors = profileValueErrors(fields, before, dataset.customFields ?? {}, {
    requireAll: dataset.state === 'active',
    prefix: 'customFields',
  });
  if (errors.length) throw validationFailed(errors);
}

/** The same for resources (`prefix` places them in a body: `resources.0.customFields`). */
export async function resourceProfileErrors(
  ctx: DomainContext,
  dataset: Dataset,
  resources: Array<{ before: Record<string, unknown>; after: Record<string, unknown>; prefix: string }>,
): Promise<FieldError[]> {
  if (resources.length === 0) return [];
  const { resource: fields } = await profileFieldsFor(ctx, orgIdOf(dataset));
  return resources.flatMap((r) =>
    profileValueErrors(fields, r.before, r.after, { requireAll: dataset.state === 'active', prefix: r.prefix }),
  );
}

export async function assertResourceProfile(ctx: DomainContext, dataset: Dataset, resource: Resource, before: Record<string, unknown>) {
  const errors = await resourceProfileErrors(ctx, dataset, [{ before, after: resource.customFields ?? {}, prefix: 'customFields' }]);
  if (errors.length) throw validationFailed(errors);
}

/** What publishing needs of the profiles: each required field of the dataset and of each resource, filled. */
export async function profileRequirementsMissing(ctx: DomainContext, dataset: Dataset, resources: Resource[]): Promise<FieldError[]> {
  const fields = await profileFieldsFor(ctx, orgIdOf(dataset));
  const message = 'is required to publish';
  return [
    ...requiredMissing(fields.dataset, dataset.customFields ?? {}, 'customFields', message),
    ...resources.flatMap((r, i) => requiredMissing(fields.resource, r.customFields ?? {}, `resources.${i}.customFields`, message)),
  ];
}

/**
 * A harvested dataset's profile values, fitted to its organization's profile: a value the profile would
 * refuse (wrong type, outside the choices, a key it does not define) is not dropped but moved to the
 * extras under its field name, as its text or JSON, like the record's other misfits. A required field
 * the source lacks does not refuse the record: the source is the authority on what it published, and a
 * harvested dataset cannot be completed by hand (its source's next run would overwrite the edit).
 */
export async function fitHarvestedProfileValues(ctx: DomainContext, dataset: Dataset) {
  const { dataset: fields } = await profileFieldsFor(ctx, orgIdOf(dataset));
  if (fields.length === 0) return;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const kept: Record<string, unknown> = {};
  const misfits: Extra[] = [];
  for (const [key, value] of Object.entries(dataset.customFields ?? {})) {
    const field = byName.get(key);
    if (value === null || (field && valueError(field, value) === null)) kept[key] = value;
    else misfits.push({ key, value: extraText(value) });
  }
  if (misfits.length === 0) return;
  dataset.customFields = kept;
  dataset.extras = withExtras(dataset.extras ?? [], misfits);
}
