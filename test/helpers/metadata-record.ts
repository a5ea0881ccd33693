/**
 * A dataset record and a distribution record with a value of every kind the metadata record holds
 * (issue 28 §1), and a profile to go with them: what the CKAN, schema.org and page tests write over REST.
 */

export const RECORD = {
  temporal: [{ start: '2010', end: '2019-12-31' }, { start: '2021-01-01T00:00:00Z' }],
  spatial: [
    { name: 'Lower Saxony', uri: 'https://sws.geonames.org/2862926/', bbox: [6.65, 51.29, 11.6, 53.89] },
    {
      name: 'Test <polygon> & "area"',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [8, 52],
            [9, 52],
            [9, 53],
            [8, 53],
            [8, 52],
          ],
        ],
      },
    },
  ],
  accrualPeriodicity: 'R/P1Y',
  language: ['en-US', 'http://publications.europa.eu/resource/authority/language/DEU'],
  theme: [{ label: 'Energy' }, { uri: 'http://publications.europa.eu/resource/authority/data-theme/ENVI', label: 'Environment' }],
  publisher: { name: 'Office of Statistics', subOrganizationOf: { name: 'Department of Commerce', uri: 'https://example.gov/doc' } },
  contactPoint: [{ name: 'Data Desk', email: 'data@example.gov' }],
  accessLevel: 'restricted public',
  rights: 'Registration required for the microdata.',
  issued: '2009-05-01',
  modified: 'R/P1D',
  conformsTo: ['https://example.org/schema/v2'],
  describedBy: { url: 'https://example.org/dictionary.csv', type: 'text/csv' },
  references: ['https://example.org/methodology.pdf'],
  identifier: 'DOC-STAT-0042',
  otherIdentifiers: [{ notation: '10.1234/abcd', scheme: 'https://doi.org/' }],
  isPartOf: ['DOC-STAT-SERIES'],
  bureauCode: ['006:07'],
  programCode: ['006:001'],
  dataQuality: true,
  primaryITInvestmentUII: '006-000000042',
  systemOfRecords: 'https://example.gov/sorn/42',
  versionNotes: 'Adds 2019.',
  spatialResolutionInMeters: 30,
  temporalResolution: 'P1D',
};

/** The record's keys as CKAN's package dict names them (src/domain/metadata/dataset-record.ts). */
export const RECORD_CKAN_NAMES: Record<keyof typeof RECORD, string> = {
  temporal: 'temporal_coverage',
  spatial: 'spatial_coverage',
  accrualPeriodicity: 'frequency',
  language: 'language',
  theme: 'theme',
  publisher: 'publisher',
  contactPoint: 'contact',
  accessLevel: 'access_level',
  rights: 'rights',
  issued: 'issued',
  modified: 'modified',
  conformsTo: 'conforms_to',
  describedBy: 'described_by',
  references: 'references',
  identifier: 'identifier',
  otherIdentifiers: 'alternate_identifier',
  isPartOf: 'is_part_of',
  bureauCode: 'bureau_code',
  programCode: 'program_code',
  dataQuality: 'data_quality',
  primaryITInvestmentUII: 'primary_it_investment_uii',
  systemOfRecords: 'system_of_records',
  versionNotes: 'version_notes',
  spatialResolutionInMeters: 'spatial_resolution_in_meters',
  temporalResolution: 'temporal_resolution',
};

export const EXTRAS = [
  { key: 'zz_first', value: '  kept  as sent \u00e9\u{1F600} ' },
  { key: 'a_json', value: '{"b": [1, 2]}' },
  { key: 'bureauCode_note', value: '' },
];

export const DISTRIBUTION = {
  accessUrl: 'https://example.org/api',
  downloadUrl: 'https://example.org/data.csv',
  byteSize: 1234,
  checksum: { algorithm: 'sha256', value: 'a'.repeat(64) },
  license: 'https://creativecommons.org/licenses/by/4.0/',
  conformsTo: ['https://example.org/schema/v2'],
  issued: '2020-01-01',
  language: ['en'],
};
export const DISTRIBUTION_CKAN = {
  access_url: DISTRIBUTION.accessUrl,
  download_url: DISTRIBUTION.downloadUrl,
  byte_size: DISTRIBUTION.byteSize,
  checksum: DISTRIBUTION.checksum,
  license: DISTRIBUTION.license,
  conforms_to: DISTRIBUTION.conformsTo,
  issued: DISTRIBUTION.issued,
  language: DISTRIBUTION.language,
};
export const CUSTOM_EXTRAS = [
  { key: 'station_code', value: 'HB-07' },
  { key: 'notes_extra', value: ' spaced ' },
];

/** A site profile: a choice, a number, a list (values a scheming site's fields take). */
export const PROFILE = {
  datasetFields: [
    { name: 'region', type: 'choice', label: 'Region', choices: [{ value: 'north' }, { value: 'south' }] },
    { name: 'population', type: 'integer', label: 'Population', min: 0 },
    { name: 'keywords_local', type: 'list', label: 'Local keywords' },
  ],
  resourceFields: [{ name: 'granularity', type: 'choice', label: 'Granularity', choices: [{ value: 'daily' }, { value: 'monthly' }] }],
};
export const CUSTOM_FIELDS = { region: 'north', population: 8000000, keywords_local: ['Wasser', 'Pegel'] };
