import { DataFactory, type Quad } from 'n3';
import { licenseFor } from '../domain/licenses.ts';
import { RESOURCE_FIELDS } from '../domain/resources/field-table.ts';
import { distributionIri, httpIri, type CatalogSite, type Graph } from './dcat-document.ts';
import { harvestedRawProperties } from './dcat-raw-triples.ts';
import { DISTRIBUTION_WRITERS, writeRecord } from './dcat-record-writer.ts';
import { licenseTypes } from './dcat-record-nodes.ts';
import { addVersions } from './dcat-versions.ts';
import { iriNode, type Subject } from './dcat-terms.ts';
import { dcatProperties, type DcatProperty } from './field-mappings.ts';
import { fileTypeOf } from './file-types.ts';
import type { FeedDataset, ResourceRecord } from './public-datasets.ts';
import { dcat, dct, rdf, rdfs, spdx, xsd } from './vocabulary.ts';

const { namedNode, blankNode, literal } = DataFactory;

const SHA256 = 'http://spdx.org/rdf/terms#checksumAlgorithm_sha256';
const dateTime = (iso: string) => literal(iso, xsd('dateTime'));

/** DCAT-AP 3's dct:license: the license document's own IRI when the table has one, else a described node. */
export function addLicense(graph: Graph, licenseId: string | null): Subject | null {
  const license = licenseFor(licenseId);
  if (!license || license.id === 'notspecified') return null;
  const node = httpIri(license.url) ?? blankNode(`license-${license.id.replace(/[^A-Za-z0-9_-]/g, '_')}`);
  licenseTypes({ add: (s, p, o) => graph.add(s, p, o), label: (s) => s }, node, license.id);
  graph.text(node, dct('title'), license.title);
  graph.add(node, dct('identifier'), literal(license.id));
  return node;
}

const DISTRIBUTION_PROPERTIES = dcatProperties(RESOURCE_FIELDS);

/** The fields that are one value of one property: a literal, or an http(s) IRI (anything else left out). */
export function addFields(graph: Graph, node: Subject, properties: DcatProperty[], source: object) {
  for (const { field, property, iri } of properties) {
    const value = (source as Record<string, unknown>)[field];
    if (typeof value !== 'string') continue;
    if (!iri) graph.text(node, property, value);
    else {
      const target = httpIri(value);
      if (target) graph.add(node, property, target);
    }
  }
}

/** A source's raw triples for the properties the record could not hold exactly, written in their place. */
export function addRawProperties(graph: Graph, site: CatalogSite, node: Subject, raw: Map<string, Quad[]>) {
  for (const quads of raw.values()) {
    // A harvested record describes itself only: never this site's catalog, datasets, organizations or pages.
    for (const q of quads) {
      const ofTheSite = q.subject.termType === 'NamedNode' && q.subject.value.startsWith(`${site.publicUrl}/`);
      if (q.subject.equals(node) || !ofTheSite) graph.add(q.subject as Subject, q.predicate as never, q.object, true);
    }
  }
}

/**
 * A resource as a dcat:Distribution: its record's values first, then Almanac's own fields for what the
 * record leaves unset (the URL Almanac serves, its size and hash, the dataset's license, its dates).
 */
export function addDistribution(graph: Graph, site: CatalogSite, dataset: FeedDataset, resource: ResourceRecord, license: Subject | null) {
  const node = namedNode(distributionIri(site, dataset.id, resource.id));
  const raw = harvestedRawProperties(dataset, resource.customExtras, node, `r-${resource.id}`, resource);
  graph.takeOver(node, raw.keys());
  const type = fileTypeOf(resource);
  graph.add(node, rdf('type'), dcat('Distribution'));
  const title = resource.name ?? type.format ?? resource.id;
  graph.text(node, dct('title'), title);
  addFields(graph, node, DISTRIBUTION_PROPERTIES, resource);
  writeRecord(DISTRIBUTION_WRITERS, { add: (s, p, o) => graph.add(s, p, o), label: (s) => `r-${resource.id}-${s}` }, node, resource);
  // An upload's URL is the service's download link; a link is where the publisher points, maybe a page.
  // A resource whose bytes never arrived has no URL yet: its record in the API is where to access it.
  const url = httpIri(resource.url);
  if (!resource.accessUrl) {
    const access = url ?? namedNode(`${site.publicUrl}/api/v1/resources/${resource.id}`);
    graph.add(node, dcat('accessURL'), access);
    graph.add(access, rdf('type'), rdfs('Resource'));
  }
  if (url && resource.urlType === 'upload' && !resource.downloadUrl) graph.add(node, dcat('downloadURL'), url);
  if (!resource.formatUri && type.formatIri) {
    graph.add(node, dct('format'), namedNode(type.formatIri));
    graph.add(namedNode(type.formatIri), rdf('type'), dct('MediaTypeOrExtent'));
  } else if (!resource.formatUri && type.format) {
    const format = blankNode(`format-${dataset.id}-${resource.id}`);
    graph.add(node, dct('format'), format);
    graph.add(format, rdf('type'), dct('MediaTypeOrExtent'));
    graph.text(format, rdfs('label'), type.format);
  }
  if (type.mediaTypeIri) {
    graph.add(node, dcat('mediaType'), namedNode(type.mediaTypeIri));
    graph.add(namedNode(type.mediaTypeIri), rdf('type'), dct('MediaType'));
  }
  if (resource.byteSize == null && resource.size !== null) {
    graph.add(node, dcat('byteSize'), literal(String(resource.size), xsd('nonNegativeInteger')));
  }
  if (!resource.checksum && resource.hash && /^[0-9a-f]{64}$/i.test(resource.hash)) {
    const checksum = blankNode(`checksum-${resource.id}`);
    graph.add(node, spdx('checksum'), checksum);
    graph.add(checksum, rdf('type'), spdx('Checksum'));
    graph.add(checksum, spdx('algorithm'), namedNode(SHA256));
    graph.add(namedNode(SHA256), rdf('type'), spdx('ChecksumAlgorithm'));
    graph.add(checksum, spdx('checksumValue'), literal(resource.hash.toLowerCase(), xsd('hexBinary')));
  }
  // A license the record names by id (not IRI) is described as the dataset's is.
  const own = resource.license && !iriNode(resource.license) ? addLicense(graph, resource.license) : null;
  if (own || (license && !resource.license)) graph.add(node, dct('license'), own ?? license!);
  if (!resource.issued) graph.add(node, dct('issued'), dateTime(resource.createdAt));
  if (!resource.modified) graph.add(node, dct('modified'), dateTime(resource.updatedAt));
  addVersions(graph, site, node, resource, title, own ?? (resource.license ? iriNode(resource.license) : license));
  addRawProperties(graph, site, node, raw);
  return node;
}
