/**
 * A resource's `format` and `mimetype` as the vocabularies harvesters expect: the EU Publications Office's
 * file-type authority for `dct:format` (DCAT-AP) and IANA media types for `dcat:mediaType`, schema.org's
 * `encodingFormat` and Croissant's. Formats outside the table keep their name and have no IRI.
 */
const FILE_TYPE_AUTHORITY = 'http://publications.europa.eu/resource/authority/file-type/';
const IANA_MEDIA_TYPES = 'https://www.iana.org/assignments/media-types/';

/** Our format names (upper case) → the EU file-type code and the usual IANA media type. */
const KNOWN: Record<string, { euCode: string; mediaType: string | null }> = {
  CSV: { euCode: 'CSV', mediaType: 'text/csv' },
  TSV: { euCode: 'TSV', mediaType: 'text/tab-separated-values' },
  JSON: { euCode: 'JSON', mediaType: 'application/json' },
  GEOJSON: { euCode: 'GEOJSON', mediaType: 'application/geo+json' },
  JSONLD: { euCode: 'JSON_LD', mediaType: 'application/ld+json' },
  'JSON-LD': { euCode: 'JSON_LD', mediaType: 'application/ld+json' },
  XML: { euCode: 'XML', mediaType: 'application/xml' },
  RDF: { euCode: 'RDF_XML', mediaType: 'application/rdf+xml' },
  TTL: { euCode: 'RDF_TURTLE', mediaType: 'text/turtle' },
  TURTLE: { euCode: 'RDF_TURTLE', mediaType: 'text/turtle' },
  HTML: { euCode: 'HTML', mediaType: 'text/html' },
  TXT: { euCode: 'TXT', mediaType: 'text/plain' },
  PDF: { euCode: 'PDF', mediaType: 'application/pdf' },
  ZIP: { euCode: 'ZIP', mediaType: 'application/zip' },
  GZIP: { euCode: 'GZIP', mediaType: 'application/gzip' },
  XLS: { euCode: 'XLS', mediaType: 'application/vnd.ms-excel' },
  XLSX: { euCode: 'XLSX', mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  ODS: { euCode: 'ODS', mediaType: 'application/vnd.oasis.opendocument.spreadsheet' },
  PARQUET: { euCode: 'PARQUET', mediaType: 'application/vnd.apache.parquet' },
  SHP: { euCode: 'SHP', mediaType: null },
  KML: { euCode: 'KML', mediaType: 'application/vnd.google-earth.kml+xml' },
  PNG: { euCode: 'PNG', mediaType: 'image/png' },
  JPEG: { euCode: 'JPEG', mediaType: 'image/jpeg' },
  JPG: { euCode: 'JPEG', mediaType: 'image/jpeg' },
};

/** `type/subtype` with the characters RFC 6838 allows, parameters dropped. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

export interface FileType {
  /** The format as the publisher named it, upper case (`CSV`), or null. */
  format: string | null;
  /** The EU file-type IRI, when the format is one it lists. */
  formatIri: string | null;
  /** The IANA media type (`text/csv`): the resource's own mimetype when well formed, else the format's. */
  mediaType: string | null;
  /** Its IANA IRI. */
  mediaTypeIri: string | null;
}

export function fileTypeOf(resource: { format: string | null; mimetype: string | null }): FileType {
  const format = resource.format?.trim().toUpperCase() || null;
  const known = format ? KNOWN[format.replace(/^\./, '')] : undefined;
  const own = resource.mimetype?.split(';')[0]!.trim().toLowerCase();
  const mediaType = own && MEDIA_TYPE.test(own) ? own : (known?.mediaType ?? null);
  return {
    format,
    formatIri: known ? FILE_TYPE_AUTHORITY + known.euCode : null,
    mediaType,
    mediaTypeIri: mediaType ? IANA_MEDIA_TYPES + mediaType : null,
  };
}
