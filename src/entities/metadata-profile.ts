import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ProfileField } from '../domain/metadata/profiles-fields.ts';
import { baseProperties } from './base.ts';
import { Group } from './group.ts';

/**
 * A metadata profile (issue 28 §1): the extra fields of datasets and of resources, for the whole site
 * (no organization) or for one organization, whose datasets get the site's fields and its own. One row
 * per scope: `scope` is `site` or the organization's id, unique, so two sysadmins saving at once cannot
 * leave two site profiles.
 */
export const MetadataProfile = defineEntity({
  name: 'MetadataProfile',
  tableName: 'metadata_profiles',
  properties: {
    ...baseProperties,
    scope: p.string().length(64).unique(),
    organization: () => p.manyToOne(Group).nullable().deleteRule('cascade').index(),
    datasetFields: p.json<ProfileField[]>().default('[]'),
    resourceFields: p.json<ProfileField[]>().default('[]'),
  },
});
export type MetadataProfile = InferEntity<typeof MetadataProfile>;
