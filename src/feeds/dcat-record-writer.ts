import { DataFactory, type NamedNode } from 'n3';
import type { DatasetRecordValues } from '../domain/metadata/dataset-record.ts';
import type { DistributionRecordValues } from '../domain/metadata/distribution-record.ts';
import {
  agentNode,
  conceptNode,
  contactNode,
  licenseTypes,
  periodNode,
  placeNode,
  relatedNode,
  statementNode,
  typedIri,
  type NodeWriter,
} from './dcat-record-nodes.ts';
import { adms, dateLiteral, dcatap, eli, iriNode, odrl, pod, prov, skos, typedLiteral, type Subject } from './dcat-terms.ts';
import { dcat, dct, foaf, rdf, rdfs, spdx } from './vocabulary.ts';

/**
 * The metadata record (src/domain/metadata/) as DCAT-AP 3 triples: one writer per key, each with the
 * classes and datatypes the range shapes want. DCAT-US's own fields (bureauCode, ...) go under its
 * namespace, as DCAT-AP has no property for them. The harvest reader renders a record through these same
 * writers to check that a mapped value comes back out as its source wrote it.
 */
const { namedNode, blankNode, literal } = DataFactory;

const FREQUENCY = 'http://publications.europa.eu/resource/authority/frequency/';
const LANGUAGE_TAG = 'http://id.loc.gov/vocabulary/iso639-1/';
const IANA = 'https://www.iana.org/assignments/media-types/';

type Writers<T> = { [K in keyof T]-?: (w: NodeWriter, node: Subject, value: NonNullable<T[K]>) => void };

const iris = (w: NodeWriter, node: Subject, predicate: NamedNode, values: string[], type?: string) => {
  for (const value of values) {
    const target = type ? typedIri(w, value, type) : iriNode(value);
    if (target) w.add(node, predicate, target);
  }
};
const date = (predicate: NamedNode) => (w: NodeWriter, node: Subject, value: string) => w.add(node, predicate, dateLiteral(value));
const plain = (predicate: NamedNode) => (w: NodeWriter, node: Subject, value: string) => w.add(node, predicate, literal(value));

function frequencyNode(w: NodeWriter, value: string) {
  const known = iriNode(value) ?? (/^[A-Z0-9_]+$/.test(value) ? namedNode(FREQUENCY + value) : null);
  const node = known && !value.startsWith('R/') ? known : blankNode(w.label('frequency'));
  w.add(node, rdf('type'), dct('Frequency'));
  if (node.termType === 'BlankNode') w.add(node, namedNode(`${rdf('value').value}`), literal(value));
  return node;
}

const languageNode = (w: NodeWriter, value: string) =>
  typedIri(w, iriNode(value) ? value : LANGUAGE_TAG + value.toLowerCase(), dct('LinguisticSystem').value);

/** A media type as its IANA IRI, or the IRI given. */
const mediaTypeIri = (value: string) => iriNode(/^[a-z]+\/[\w.+-]+$/i.test(value) ? IANA + value : value);

const ROLE = dcat('Role').value;

export const DATASET_WRITERS: Writers<DatasetRecordValues> = {
  temporal: (w, node, periods) => periods.forEach((p, i) => w.add(node, dct('temporal'), periodNode(w, p, `temporal-${i}`))),
  spatial: (w, node, places) => places.forEach((p, i) => w.add(node, dct('spatial'), placeNode(w, p, `spatial-${i}`))),
  accrualPeriodicity: (w, node, value) => w.add(node, dct('accrualPeriodicity'), frequencyNode(w, value)),
  language: (w, node, values) => values.forEach((v) => w.add(node, dct('language'), languageNode(w, v)!)),
  theme: (w, node, values) => values.forEach((v, i) => w.add(node, dcat('theme'), conceptNode(w, v, skos('Concept').value, `theme-${i}`))),
  publisher: (w, node, value) => w.add(node, dct('publisher'), agentNode(w, value, 'publisher')),
  contactPoint: (w, node, values) => values.forEach((v, i) => w.add(node, dcat('contactPoint'), contactNode(w, v, `contact-${i}`))),
  creator: (w, node, value) => w.add(node, dct('creator'), agentNode(w, value, 'creator')),
  accessLevel: plain(pod('accessLevel')),
  accessRights: (w, node, value) => w.add(node, dct('accessRights'), conceptNode(w, value, dct('RightsStatement').value, 'access')),
  rights: (w, node, value) => w.add(node, dct('rights'), statementNode(w, value, dct('RightsStatement').value, 'rights')),
  issued: date(dct('issued')),
  modified: date(dct('modified')),
  conformsTo: (w, node, values) => iris(w, node, dct('conformsTo'), values, dct('Standard').value),
  describedBy: (w, node, value) => {
    w.add(node, pod('describedBy'), namedNode(value.url));
    if (value.type) w.add(node, pod('describedByType'), literal(value.type));
  },
  references: (w, node, values) => iris(w, node, dct('references'), values),
  documentation: (w, node, values) => iris(w, node, foaf('page'), values, foaf('Document').value),
  identifier: plain(dct('identifier')),
  otherIdentifiers: (w, node, values) =>
    values.forEach((v, i) => {
      const id = iriNode(v.uri) ?? blankNode(w.label(`identifier-${i}`));
      w.add(node, adms('identifier'), id);
      w.add(id, rdf('type'), adms('Identifier'));
      w.add(id, skos('notation'), v.scheme ? literal(v.notation, namedNode(v.scheme)) : literal(v.notation));
    }),
  // An IRI is a dataset series (dcat:inSeries); DCAT-US's collection identifiers are text.
  isPartOf: (w, node, values) =>
    values.forEach((v) => {
      const series = typedIri(w, v, dcat('DatasetSeries').value);
      w.add(node, series ? dcat('inSeries') : dct('isPartOf'), series ?? literal(v));
    }),
  bureauCode: (w, node, values) => values.forEach((v) => w.add(node, pod('bureauCode'), literal(v))),
  programCode: (w, node, values) => values.forEach((v) => w.add(node, pod('programCode'), literal(v))),
  dataQuality: (w, node, value) => w.add(node, pod('dataQuality'), typedLiteral(String(value), 'boolean')),
  primaryITInvestmentUII: plain(pod('primaryITInvestmentUII')),
  systemOfRecords: (w, node, value) => w.add(node, pod('systemOfRecords'), namedNode(value)),
  versionNotes: plain(adms('versionNotes')),
  type: (w, node, value) => w.add(node, dct('type'), conceptNode(w, value, skos('Concept').value, 'type')),
  status: (w, node, value) => w.add(node, adms('status'), conceptNode(w, value, skos('Concept').value, 'status')),
  provenance: (w, node, values) =>
    values.forEach((v, i) => w.add(node, dct('provenance'), statementNode(w, v, dct('ProvenanceStatement').value, `provenance-${i}`))),
  source: (w, node, values) => iris(w, node, dct('source'), values, dcat('Dataset').value),
  relation: (w, node, values) => iris(w, node, dct('relation'), values, rdfs('Resource').value),
  hasVersion: (w, node, values) => iris(w, node, dct('hasVersion'), values, dcat('Dataset').value),
  isVersionOf: (w, node, values) => iris(w, node, dct('isVersionOf'), values),
  isReferencedBy: (w, node, values) => iris(w, node, dct('isReferencedBy'), values, rdfs('Resource').value),
  sample: (w, node, values) => iris(w, node, adms('sample'), values, dcat('Distribution').value),
  wasGeneratedBy: (w, node, values) => iris(w, node, prov('wasGeneratedBy'), values, prov('Activity').value),
  qualifiedRelation: (w, node, values) =>
    values.forEach((v, i) => {
      const rel = blankNode(w.label(`relation-${i}`));
      w.add(node, dcat('qualifiedRelation'), rel);
      w.add(rel, rdf('type'), dcat('Relationship'));
      // DCAT-AP's SHACL wants the target an rdfs:Resource; its range, one of DCAT's resources (relatedResources says which).
      w.add(rel, dct('relation'), typedIri(w, v.relation, rdfs('Resource').value)!);
      w.add(rel, dcat('hadRole'), typedIri(w, v.role, ROLE)!);
    }),
  qualifiedAttribution: (w, node, values) =>
    values.forEach((v, i) => {
      const attribution = blankNode(w.label(`attribution-${i}`));
      w.add(node, prov('qualifiedAttribution'), attribution);
      w.add(attribution, rdf('type'), prov('Attribution'));
      w.add(attribution, prov('agent'), agentNode(w, v.agent, `attribution-${i}-agent`));
      w.add(attribution, dcat('hadRole'), typedIri(w, v.role, ROLE)!);
    }),
  // Triples about the linked resources only: the links themselves are isPartOf's and qualifiedRelation's.
  relatedResources: (w, _node, values) => values.forEach((v, i) => relatedNode(w, v, v.contactPoint, `related-${i}`)),
  applicableLegislation: (w, node, values) => iris(w, node, dcatap('applicableLegislation'), values, eli('LegalResource').value),
  temporalResolution: (w, node, value) => w.add(node, dcat('temporalResolution'), typedLiteral(value, 'duration')),
  spatialResolutionInMeters: (w, node, value) => w.add(node, dcat('spatialResolutionInMeters'), typedLiteral(String(value), 'decimal')),
};

const SPDX_ALGORITHM = 'http://spdx.org/rdf/terms#checksumAlgorithm_';

export const DISTRIBUTION_WRITERS: Writers<DistributionRecordValues> = {
  accessUrl: (w, node, value) => iris(w, node, dcat('accessURL'), [value], rdfs('Resource').value),
  downloadUrl: (w, node, value) => iris(w, node, dcat('downloadURL'), [value], rdfs('Resource').value),
  byteSize: (w, node, value) => w.add(node, dcat('byteSize'), typedLiteral(String(value), 'nonNegativeInteger')),
  checksum: (w, node, value) => {
    const checksum = blankNode(w.label('checksum'));
    w.add(node, spdx('checksum'), checksum);
    w.add(checksum, rdf('type'), spdx('Checksum'));
    const algorithm = namedNode(SPDX_ALGORITHM + value.algorithm);
    w.add(checksum, spdx('algorithm'), algorithm);
    w.add(algorithm, rdf('type'), spdx('ChecksumAlgorithm'));
    w.add(checksum, spdx('checksumValue'), typedLiteral(value.value.toLowerCase(), 'hexBinary'));
  },
  license: (w, node, value) => {
    const license = iriNode(value);
    if (!license) return;
    w.add(node, dct('license'), license);
    licenseTypes(w, license, value);
  },
  rights: DATASET_WRITERS.rights,
  accessRights: DATASET_WRITERS.accessRights,
  conformsTo: DATASET_WRITERS.conformsTo,
  describedBy: DATASET_WRITERS.describedBy,
  issued: DATASET_WRITERS.issued,
  modified: DATASET_WRITERS.modified,
  language: DATASET_WRITERS.language,
  temporalResolution: DATASET_WRITERS.temporalResolution,
  spatialResolutionInMeters: DATASET_WRITERS.spatialResolutionInMeters,
  formatUri: (w, node, value) => w.add(node, dct('format'), typedIri(w, value, dct('MediaTypeOrExtent').value)!),
  compressFormat: (w, node, value) => {
    const type = mediaTypeIri(value);
    if (type) w.add(node, dcat('compressFormat'), typedIri(w, type.value, dct('MediaType').value)!);
  },
  packageFormat: (w, node, value) => {
    const type = mediaTypeIri(value);
    if (type) w.add(node, dcat('packageFormat'), typedIri(w, type.value, dct('MediaType').value)!);
  },
  availability: (w, node, value) =>
    w.add(node, dcatap('availability'), conceptNode(w, { uri: value }, skos('Concept').value, 'availability')),
  status: DATASET_WRITERS.status,
  documentation: DATASET_WRITERS.documentation,
  applicableLegislation: DATASET_WRITERS.applicableLegislation,
  accessService: (w, node, values) => iris(w, node, dcat('accessService'), values, dcat('DataService').value),
  hasPolicy: (w, node, value) => w.add(node, odrl('hasPolicy'), typedIri(w, value, odrl('Policy').value)!),
  // Documentation is foaf:page (DCAT-AP); other related pages are rdfs:seeAlso, so the two come back apart.
  page: (w, node, values) => iris(w, node, rdfs('seeAlso'), values),
};

/** Writes every key the record holds, in the table's order. */
export function writeRecord<T extends object>(writers: Writers<T>, w: NodeWriter, node: Subject, record: T) {
  for (const [key, write] of Object.entries(writers) as Array<[string, (w: NodeWriter, n: Subject, v: unknown) => void]>) {
    const value = (record as Record<string, unknown>)[key];
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    write(w, node, value);
  }
}
