import { z } from 'zod';
import { email } from '../users/fields.ts';

/**
 * The value types of the metadata record (DCAT-AP 3, DCAT-US 1.1): what REST, the CKAN API, MCP, the web
 * form and harvesting all check a value against. Text is kept as given (a date stays `2010` or
 * `2010-01-01T00:00:00Z`), so what a source published comes back out identical.
 */

export const MAX_LIST = 200;
const SHORT = 500;
export const LONG = 20_000;
const URI = 2_000;

export const text = (max = SHORT) => z.string().trim().min(1, 'must not be empty').max(max);
export const list = <T extends z.ZodType>(item: T, max = MAX_LIST) => z.array(item).max(max, `must have at most ${max} items`);

/** An absolute IRI: http(s), urn, mailto, … (DCAT-AP's ranges are IRIs, not only web pages). */
export const iri = z
  .string()
  .trim()
  .max(URI)
  .regex(/^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>"{}|\\^`]+$/, 'must be an absolute IRI (such as https://…)');

export const webUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(URI);

/**
 * ISO 8601 date or date-time at any precision down from the year: `2010`, `2010-05`, `2010-05-01`,
 * `2010-05-01T12:00:00Z`. Years from 0001 (PostgreSQL has no year 0); an hour comes with its minutes and a
 * zone offset with its minutes, so every accepted value is one instant.
 */
const ISO_INSTANT =
  /^(?!0000)\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?)?)?$/;
export const isoInstant = z.string().trim().max(40).regex(ISO_INSTANT, 'must be an ISO 8601 date or date-time, such as 2010-01-31');

/** ISO 8601 repeating interval (`R/P1Y`, `R/PT1H`) as DCAT-US writes a frequency. */
const REPEATING =
  /^R\d*\/P(?=\d|T\d)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;
/** ISO 8601 duration (`P1D`, `PT15M`): a temporal resolution. */
export const duration = z
  .string()
  .trim()
  .regex(
    /^P(?=\d|T\d)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/,
    'must be an ISO 8601 duration, such as P1D',
  );

/** A date (`issued`, `modified`): an instant, or (DCAT-US) a repeating interval for data that changes all the time. */
export const dateText = z.union([isoInstant, z.string().trim().regex(REPEATING)], {
  error: 'must be an ISO 8601 date or date-time (such as 2010-01-31), or a repeating interval (R/P1D)',
});

/**
 * How often it changes: an EU frequency IRI or its code (`ANNUAL`,
 * http://publications.europa.eu/resource/authority/frequency/ANNUAL), an ISO 8601 repeating duration as
 * DCAT-US writes it (`R/P1Y`), or DCAT-US's `irregular`.
 */
export const frequency = z.union(
  [
    z.string().trim().regex(REPEATING),
    z.literal('irregular'),
    z
      .string()
      .trim()
      .regex(/^[A-Z0-9_]{2,30}$/),
    iri,
  ],
  {
    error: 'must be a frequency: an EU frequency code or IRI (ANNUAL), an ISO 8601 repeating duration (R/P1Y), or irregular',
  },
);

/** A language: a BCP 47 tag (`en`, `en-US`) or an IRI (the EU language table's). */
export const language = z.union(
  [
    z
      .string()
      .trim()
      .regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8}){0,4}$/),
    iri,
  ],
  {
    error: 'must be a language tag (en, en-US) or an IRI',
  },
);

/** A concept of a vocabulary (a theme, a type, a status): its IRI, its label, or both. */
export const concept = z
  .strictObject({ uri: iri.nullish(), label: text().nullish() })
  .refine((c) => c.uri || c.label, 'must have a uri or a label')
  .meta({ id: 'Concept' });

/** An organization or person (foaf:Agent; DCAT-US's publisher, with the organizations above it). */
export interface Agent {
  name?: string | null;
  uri?: string | null;
  email?: string | null;
  url?: string | null;
  type?: string | null;
  subOrganizationOf?: Agent | null;
}
const AGENT_DEPTH = 5;
const agentAt = (depth: number): z.ZodType<Agent> =>
  z
    .strictObject({
      name: text().nullish(),
      uri: iri.nullish(),
      email: email.nullish(),
      url: webUrl.nullish(),
      type: iri.nullish().describe('Its kind (an IRI of the EU publisher-type table)'),
      subOrganizationOf:
        depth < AGENT_DEPTH
          ? z.lazy(() => agentAt(depth + 1)).nullish()
          : z.null({ error: `must not nest more than ${AGENT_DEPTH} organizations` }).optional(),
    })
    .refine((a) => a.name || a.uri, 'must have a name or a uri');
// One component in the OpenAPI document: the record names an agent in five places, each unrolled five deep.
export const agent = agentAt(1).meta({ id: 'Agent' });

/** Who to contact (vcard:Kind): DCAT-US's contactPoint `fn` and `hasEmail`. */
export const contact = z
  .strictObject({
    name: text().nullish(),
    email: email.nullish(),
    url: webUrl.nullish(),
    phone: text(100).nullish(),
    uri: iri.nullish(),
  })
  .refine((c) => c.name || c.email || c.url || c.uri, 'must have a name, an email, a url or a uri')
  .meta({ id: 'ContactPoint' });

export const ACCESS_LEVELS = ['public', 'restricted public', 'non-public'] as const;
export const accessLevel = z.enum(ACCESS_LEVELS, { error: 'must be public, restricted public or non-public' });

/** A document that describes the data (DCAT-US `describedBy` with `describedByType`). */
export const describedBy = z.strictObject({ url: webUrl, type: text(200).nullish().describe('Its media type') });

/** An identifier other than the main one (adms:Identifier): its notation and the scheme it comes from. */
export const otherIdentifier = z.strictObject({
  notation: text(),
  scheme: iri.nullish(),
  uri: iri.nullish(),
});

export const checksum = z.strictObject({
  algorithm: z.enum(['sha1', 'sha256', 'sha512', 'md5', 'sha224', 'sha384'], {
    error: 'must be one of sha1, sha256, sha512, md5, sha224, sha384',
  }),
  value: z.string().regex(/^[0-9a-fA-F]{32,128}$/, 'must be hexadecimal'),
});

/** A relation to another resource (dcat:qualifiedRelation): the resource and the role it plays. */
export const qualifiedRelation = z.strictObject({ relation: iri, role: iri });
/** An agent and its role (prov:qualifiedAttribution). */
export const qualifiedAttribution = z.strictObject({ agent, role: iri });

export const RELATED_CLASSES = ['DatasetSeries', 'Dataset', 'DataService', 'Catalog'] as const;
/**
 * A DCAT resource the record links to (the series of dcat:inSeries, the target of a qualified relation),
 * described as DCAT-AP wants of that link's range: of its class, with a title and description (mandatory)
 * and its publisher and contact point (recommended for a series).
 */
export const relatedResource = z
  .strictObject({
    uri: iri,
    class: z.enum(RELATED_CLASSES, { error: `must be one of ${RELATED_CLASSES.join(', ')}` }),
    title: text(),
    description: text(LONG).nullish(),
    // Lazily: TypeScript then still infers the whole record's types (eagerly, it gave up and said unknown).
    publisher: z.lazy(() => agent).nullish(),
    contactPoint: contact.nullish(),
  })
  .meta({ id: 'RelatedResource' });
