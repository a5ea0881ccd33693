import { z } from 'zod';
import type { RecordTable, RecordValues } from './dataset-record.ts';
import { checksum, concept, dateText, describedBy, duration, iri, language, list, LONG, text, webUrl } from './values.ts';

/**
 * A resource's metadata as a distribution (DCAT-AP 3, DCAT-US 1.1) beyond its own fields (name,
 * description, format, mimetype, url, size, hash): one line each with its key in CKAN's resource dict.
 * Stored in `resources.metadata`; `accessUrl` and `downloadUrl` keep the source's two links apart (the
 * resource's `url` is the one Almanac fetches: the download URL when there is one).
 */
export const DISTRIBUTION_RECORD = {
  accessUrl: { schema: webUrl, ckan: 'access_url', about: 'Where the data can be reached (a page, an API)' },
  downloadUrl: { schema: webUrl, ckan: 'download_url', about: 'The file itself' },
  byteSize: { schema: z.number().int().nonnegative(), ckan: 'byte_size', about: 'Its size at the source, in bytes' },
  checksum: { schema: checksum, ckan: 'checksum', about: 'A checksum of the file at the source' },
  license: { schema: text(2_000), ckan: 'license', about: 'Its license, when it differs from the dataset’s (an IRI or id)' },
  rights: { schema: text(LONG), ckan: 'rights', about: 'A statement of the rights over it' },
  accessRights: { schema: concept, ckan: 'access_rights', about: 'DCAT-AP access rights' },
  conformsTo: { schema: list(iri), ckan: 'conforms_to', about: 'Standards or schemas it conforms to' },
  describedBy: { schema: describedBy, ckan: 'described_by', about: 'Its data dictionary' },
  issued: { schema: dateText, ckan: 'issued', about: 'When the source first published it' },
  modified: { schema: dateText, ckan: 'modified', about: 'When the source last changed it' },
  language: { schema: list(language), ckan: 'language', about: 'Languages of its content' },
  temporalResolution: { schema: duration, ckan: 'temporal_resolution', about: 'Its smallest time step' },
  spatialResolutionInMeters: {
    schema: z.number().positive().finite(),
    ckan: 'spatial_resolution_in_meters',
    about: 'Its smallest distance step',
  },
  formatUri: { schema: iri, ckan: 'format_uri', about: 'Its format as an IRI (the EU file-type table)' },
  compressFormat: { schema: text(200), ckan: 'compress_format', about: 'Its compression (a media type)' },
  packageFormat: { schema: text(200), ckan: 'package_format', about: 'Its packaging (a media type)' },
  availability: { schema: iri, ckan: 'availability', about: 'How long it is planned to stay available' },
  status: { schema: concept, ckan: 'status', about: 'Its lifecycle status' },
  documentation: { schema: list(iri), ckan: 'documentation', about: 'Pages that document it' },
  applicableLegislation: { schema: list(iri), ckan: 'applicable_legislation', about: 'Legislation that mandates it' },
  accessService: { schema: list(iri), ckan: 'access_service', about: 'Data services that give access to it' },
  hasPolicy: { schema: iri, ckan: 'has_policy', about: 'Its ODRL policy' },
  page: { schema: list(webUrl), ckan: 'page', about: 'Related web pages' },
} as const satisfies RecordTable;

export type DistributionRecordValues = RecordValues<typeof DISTRIBUTION_RECORD>;
