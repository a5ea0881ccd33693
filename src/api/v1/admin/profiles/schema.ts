import { z } from 'zod';
import { profileField, profileFieldList } from '../../../../domain/metadata/profiles-fields.ts';

const jsonSchema = z
  .record(z.string(), z.unknown())
  .describe(
    'A JSON Schema (draft 2020-12) of a `customFields` object, in the subset that maps onto the declarative fields: ' +
      'type (string, number, integer, boolean, array of strings), format (date, date-time, uri, email), enum, oneOf of {const, title}, ' +
      'minimum, maximum, maxLength, pattern, items, title, description, and required; other keywords are refused',
  );

/** A profile is replaced as a whole; each kind as declarative fields or as a JSON Schema, not both. */
export const ProfileBody = z
  .strictObject({
    datasetFields: profileFieldList.optional().describe('The extra fields of datasets (their `customFields`)'),
    resourceFields: profileFieldList.optional().describe('The extra fields of resources (their `customFields`)'),
    datasetSchema: jsonSchema.optional(),
    resourceSchema: jsonSchema.optional(),
  })
  .superRefine((b, ctx) => {
    for (const kind of ['dataset', 'resource'] as const) {
      if (b[`${kind}Fields`] !== undefined && b[`${kind}Schema`] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [`${kind}Schema`], message: `give ${kind}Fields or ${kind}Schema, not both` });
      }
    }
  })
  .meta({ id: 'MetadataProfileInput' });

const OrgRef = z.object({ id: z.uuid(), name: z.string(), title: z.string() });

export const ProfileRecord = z
  .object({
    scope: z.enum(['site', 'organization']),
    organization: OrgRef.nullable(),
    datasetFields: z.array(profileField),
    resourceFields: z.array(profileField),
    createdAt: z.iso.datetime().nullable().describe('null: no profile was defined here yet'),
    updatedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'MetadataProfile' });

export const ProfileJsonSchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'MetadataProfileJsonSchema', description: 'A JSON Schema (draft 2020-12) document' });
