import { randomInt } from 'node:crypto';
import type { Dataset, Group } from '../../entities/index.ts';
import type { OrgRoles } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { validationFailed, type FieldError } from '../errors.ts';
import { assertDatasetProfile } from '../metadata/profiles-enforce.ts';
import { applyDatasetMetadata, type DatasetMetadataInput } from '../metadata/record-io.ts';
import { assignFields, DATASET_FIELDS, type FieldInput } from './field-table.ts';
import { resolveCategories, resolveOwnerOrg, resolveTags } from './references.ts';
import { RESERVED_DATASET_NAMES } from './reserved-names.ts';

/** Writable dataset fields; in a partial update an absent key is left alone and null clears. */
export interface DatasetInput extends FieldInput<typeof DATASET_FIELDS>, DatasetMetadataInput {
  name?: string | null;
  ownerOrg?: string | null;
  tags?: string[] | null;
  groups?: string[] | null;
}

/** What an active dataset must always have: the publish requirements of spec §3. */
export const REQUIRED_WHEN_ACTIVE = ['name', 'ownerOrg', 'licenseId'] as const;

export function missingForActive(input: DatasetInput): FieldError[] {
  return REQUIRED_WHEN_ACTIVE.filter((k) => input[k] === undefined || input[k] === null).map((path) => ({
    path,
    message: 'is required for an active dataset',
  }));
}

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const placeholderName = () => `untitled-${Array.from({ length: 8 }, () => LOWER_ALNUM[randomInt(36)]).join('')}`;

/**
 * Writes `input` onto `dataset`. `full` (PUT on an active dataset) replaces every field, clearing what
 * is omitted; `partial` (PUT on a draft, and creation) touches only the keys present.
 */
export async function applyDatasetFields(
  ctx: DomainContext,
  actor: Actor,
  roles: OrgRoles,
  dataset: Dataset,
  input: DatasetInput,
  mode: 'full' | 'partial',
) {
  const given = (key: keyof DatasetInput) => mode === 'full' || key in input;
  if (mode === 'full') {
    const missing = missingForActive(input);
    if (missing.length > 0) throw validationFailed(missing);
  }

  assignFields(DATASET_FIELDS, dataset, input, given);
  const customBefore = dataset.customFields ?? {};
  applyDatasetMetadata(dataset, input, mode === 'full');
  if (given('name')) {
    if (input.name && RESERVED_DATASET_NAMES.has(input.name)) {
      throw validationFailed([{ path: 'name', message: `is reserved: /packages/${input.name} is a path of the API` }]);
    }
    dataset.name = input.name ?? placeholderName();
    dataset.nameGenerated = !input.name;
  }
  if (given('ownerOrg')) {
    dataset.ownerOrg = input.ownerOrg ? await resolveOwnerOrg(ctx, actor, roles, input.ownerOrg) : null;
  }
  if (given('tags')) dataset.tags.set(await resolveTags(ctx, input.tags ?? []));
  if (given('groups')) {
    const current = dataset.groups.isInitialized() ? (dataset.groups.getItems() as Group[]) : [];
    dataset.groups.set(await resolveCategories(ctx, actor, input.groups ?? [], current));
  }
  // After the organization is known: its profile is the one that applies.
  await assertDatasetProfile(ctx, dataset, customBefore);
}
