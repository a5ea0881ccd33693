import { DataFactory, type BlankNode, type NamedNode, type Quad } from 'n3';
import { DATASET_FIELDS } from '../domain/datasets/field-table.ts';
import { licenseFor } from '../domain/licenses.ts';
import { RESOURCE_FIELDS } from '../domain/resources/field-table.ts';
import { dcatProperties, type DcatProperty } from './field-mappings.ts';
import { fileTypeOf } from './file-types.ts';
import type { FeedDataset, ResourceRecord } from './public-datasets.ts';
import { dcat, dct, foaf, hydra, rdf, rdfs, spdx, vcard, xsd } from './vocabulary.ts';

const { namedNode, blankNode, literal, quad } = DataFactory;

const adms = (local: string) => namedNode(`http://www.w3.org/ns/adms#${local}`);
const skos = (local: string) => namedNode(`http://www.w3.org/2004/02/skos/core#${local}`);

type Subject = NamedNode | BlankNode;

/** Where the catalog lives and what it is called: PUBLIC_URL and the site name. */
export interface CatalogSite {
  publicUrl: string;
  siteName: string;
}

/** The page of the catalog a document holds, and how to name any other page (Hydra links). */
export interface CatalogView {
  page: number;
  pageSize: number;
  total: number;
  pageUrl(page: number): string;
}

export const catalogIri = (site: CatalogSite) => `${site.publicUrl}/catalog`;
export const datasetIri = (site: CatalogSite, datasetId: string) => `${site.publicUrl}/dataset/${datasetId}`;
export const distributionIri = (site: CatalogSite, datasetId: string, resourceId: string) =>
  `${datasetIri(site, datasetId)}/resource/${resourceId}`;

/** The EU access-rights authority's "public": what every dataset in a feed is. */
const PUBLIC_ACCESS = 'http://publications.europa.eu/resource/authority/access-right/PUBLIC';
const SHA256 = 'http://spdx.org/rdf/terms#checksumAlgorithm_sha256';

/** What Turtle's IRIREF and RDF/XML parsers refuse in an IRI, and WHATWG URL serialization leaves raw in a query. */
const NOT_IN_IRIREF = /[{}|\\^`]/g;

/**
 * An http(s) URL as an IRI, else null: normalised by `new URL` (which percent-encodes spaces, quotes and
 * angle brackets), then the few characters it leaves raw in a query percent-encoded too, so that strict
 * parsers (Jena-based harvesters) accept the document.
 */
function httpIri(url: string | null | undefined): NamedNode | null {
  if (!url || !URL.canParse(url)) return null;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return namedNode(parsed.href.replace(NOT_IN_IRIREF, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
}

/**
 * An IRI this site describes itself (the catalog, a dataset or distribution, an organization): only the
 * site's own code says things about it. Other pages of the site stay a dataset's to link.
 */
const isSiteIri = (site: CatalogSite, iri: NamedNode) =>
  ['/catalog', '/dataset/', '/organization/'].some((path) => iri.value.startsWith(`${site.publicUrl}${path}`));

const mailto = (email: string) => namedNode(new URL(`mailto:${email}`).href);
const dateTime = (iso: string) => literal(iso, xsd('dateTime'));

/** Triples each once (the same organization or license serves many datasets), grouped by subject in the order met. */
class Graph {
  private readonly bySubject = new Map<string, Quad[]>();
  private readonly seen = new Set<string>();

  get quads(): Quad[] {
    return [...this.bySubject.values()].flat();
  }

  add(subject: Subject, predicate: NamedNode, object: Quad['object']) {
    const key = `${subject.termType}${subject.value} ${predicate.value} ${object.termType}${object.id}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const subjectKey = `${subject.termType}${subject.value}`;
    const quads = this.bySubject.get(subjectKey) ?? [];
    quads.push(quad(subject, predicate, object));
    this.bySubject.set(subjectKey, quads);
  }

  text(subject: Subject, predicate: NamedNode, value: string | null | undefined) {
    if (value?.trim()) this.add(subject, predicate, literal(value));
  }
}

/** DCAT-AP 3's dct:license: the license document's own IRI when the table has one, else a described node. */
function addLicense(graph: Graph, licenseId: string | null): Subject | null {
  const license = licenseFor(licenseId);
  if (!license || license.id === 'notspecified') return null;
  const node = httpIri(license.url) ?? blankNode(`license-${license.id.replace(/[^A-Za-z0-9_-]/g, '_')}`);
  graph.add(node, rdf('type'), dct('LicenseDocument'));
  graph.text(node, dct('title'), license.title);
  graph.add(node, dct('identifier'), literal(license.id));
  return node;
}

const DATASET_PROPERTIES = dcatProperties(DATASET_FIELDS);
const DISTRIBUTION_PROPERTIES = dcatProperties(RESOURCE_FIELDS);

/** The fields that are one value of one property: a literal, or an http(s) IRI (anything else left out). */
function addFields(graph: Graph, node: Subject, properties: DcatProperty[], source: object) {
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

function addDistribution(graph: Graph, site: CatalogSite, dataset: FeedDataset, resource: ResourceRecord, license: Subject | null) {
  const node = namedNode(distributionIri(site, dataset.id, resource.id));
  const type = fileTypeOf(resource);
  graph.add(node, rdf('type'), dcat('Distribution'));
  graph.text(node, dct('title'), resource.name ?? type.format ?? resource.id);
  addFields(graph, node, DISTRIBUTION_PROPERTIES, resource);
  // An upload's URL is the service's download link; a link is where the publisher points, maybe a page.
  // A resource whose bytes never arrived has no URL yet: its record in the API is where to access it.
  const url = httpIri(resource.url);
  const access = url ?? namedNode(`${site.publicUrl}/api/v1/resources/${resource.id}`);
  graph.add(node, dcat('accessURL'), access);
  graph.add(access, rdf('type'), rdfs('Resource'));
  if (url && resource.urlType === 'upload') graph.add(node, dcat('downloadURL'), url);
  if (type.formatIri) {
    graph.add(node, dct('format'), namedNode(type.formatIri));
    graph.add(namedNode(type.formatIri), rdf('type'), dct('MediaTypeOrExtent'));
  } else if (type.format) {
    const format = blankNode(`format-${dataset.id}-${resource.id}`);
    graph.add(node, dct('format'), format);
    graph.add(format, rdf('type'), dct('MediaTypeOrExtent'));
    graph.text(format, rdfs('label'), type.format);
  }
  if (type.mediaTypeIri) {
    graph.add(node, dcat('mediaType'), namedNode(type.mediaTypeIri));
    graph.add(namedNode(type.mediaTypeIri), rdf('type'), dct('MediaType'));
  }
  if (resource.size !== null) graph.add(node, dcat('byteSize'), literal(String(resource.size), xsd('nonNegativeInteger')));
  if (resource.hash && /^[0-9a-f]{64}$/i.test(resource.hash)) {
    const checksum = blankNode(`checksum-${resource.id}`);
    graph.add(node, spdx('checksum'), checksum);
    graph.add(checksum, rdf('type'), spdx('Checksum'));
    graph.add(checksum, spdx('algorithm'), namedNode(SHA256));
    graph.add(namedNode(SHA256), rdf('type'), spdx('ChecksumAlgorithm'));
    graph.add(checksum, spdx('checksumValue'), literal(resource.hash.toLowerCase(), xsd('hexBinary')));
  }
  if (license) graph.add(node, dct('license'), license);
  graph.add(node, dct('issued'), dateTime(resource.createdAt));
  graph.add(node, dct('modified'), dateTime(resource.updatedAt));
  return node;
}

/**
 * A harvested dataset's origin: its id at the source as `adms:identifier`, and the record it was made
 * from as `dct:source` (a dcat:Dataset, titled like this one, as DCAT-AP's shapes want of its range).
 */
function addProvenance(
  graph: Graph,
  site: CatalogSite,
  node: NamedNode,
  datasetId: string,
  harvest: NonNullable<FeedDataset['harvest']>,
  title: string,
  description: string,
) {
  const identifier = blankNode(`remote-id-${datasetId}`);
  graph.add(node, adms('identifier'), identifier);
  graph.add(identifier, rdf('type'), adms('Identifier'));
  graph.add(identifier, skos('notation'), literal(harvest.remoteId));
  const source = httpIri(harvest.remoteUrl) ?? httpIri(harvest.remoteId);
  // A record that names one of this site's IRIs as its origin would describe that subject (another
  // dataset's title, say): a harvested record describes itself only.
  if (!source || isSiteIri(site, source)) return;
  graph.add(node, dct('source'), source);
  graph.add(source, rdf('type'), dcat('Dataset'));
  graph.text(source, dct('title'), title);
  graph.text(source, dct('description'), description);
}

function addDataset(graph: Graph, site: CatalogSite, dataset: FeedDataset): NamedNode {
  const node = namedNode(datasetIri(site, dataset.id));
  const title = dataset.title?.trim() || dataset.name;
  const description = dataset.notes?.trim() || title;
  graph.add(node, rdf('type'), dcat('Dataset'));
  graph.text(node, dct('title'), title);
  // dct:description is mandatory in DCAT-AP; a dataset without notes is described by its title.
  graph.text(node, dct('description'), description);
  graph.add(node, dct('identifier'), literal(dataset.id));
  if (dataset.harvest) addProvenance(graph, site, node, dataset.id, dataset.harvest, title, description);
  for (const tag of dataset.tags) graph.text(node, dcat('keyword'), tag);
  graph.add(node, dct('issued'), dateTime(dataset.publishedAt ?? dataset.createdAt));
  graph.add(node, dct('modified'), dateTime(dataset.updatedAt));
  addFields(graph, node, DATASET_PROPERTIES, dataset);
  graph.add(node, dct('accessRights'), namedNode(PUBLIC_ACCESS));
  graph.add(namedNode(PUBLIC_ACCESS), rdf('type'), dct('RightsStatement'));

  const landing = httpIri(dataset.url);
  // Typing a page of this site as a foaf:Document would be a triple about one of its own subjects.
  if (landing && !isSiteIri(site, landing)) {
    graph.add(node, dcat('landingPage'), landing);
    graph.add(landing, rdf('type'), foaf('Document'));
  }
  if (dataset.organization) {
    const org = namedNode(`${site.publicUrl}/organization/${dataset.organization.id}`);
    graph.add(node, dct('publisher'), org);
    graph.add(org, rdf('type'), foaf('Agent'));
    graph.add(org, rdf('type'), foaf('Organization'));
    graph.text(org, foaf('name'), dataset.organization.title || dataset.organization.name);
  }
  if (dataset.author || dataset.authorEmail) {
    const creator = blankNode(`creator-${dataset.id}`);
    graph.add(node, dct('creator'), creator);
    graph.add(creator, rdf('type'), foaf('Agent'));
    graph.text(creator, foaf('name'), dataset.author ?? dataset.authorEmail);
    if (dataset.authorEmail) graph.add(creator, foaf('mbox'), mailto(dataset.authorEmail));
  }
  const contactName = dataset.maintainer ?? dataset.author;
  const contactEmail = dataset.maintainerEmail ?? dataset.authorEmail;
  if (contactName || contactEmail) {
    const contact = blankNode(`contact-${dataset.id}`);
    graph.add(node, dcat('contactPoint'), contact);
    graph.add(contact, rdf('type'), vcard('Kind'));
    graph.text(contact, vcard('fn'), contactName ?? contactEmail);
    if (contactEmail) graph.add(contact, vcard('hasEmail'), mailto(contactEmail));
  }
  const license = addLicense(graph, dataset.licenseId);
  // DCAT-AP puts the license on each distribution; DCAT 3 also allows it on the dataset, where harvesters look first.
  if (license) graph.add(node, dct('license'), license);
  for (const resource of dataset.resources) graph.add(node, dcat('distribution'), addDistribution(graph, site, dataset, resource, license));
  return node;
}

/** One dataset in DCAT-AP 3: the document `/dataset/{nameOrId}.{ttl,jsonld,rdf}` serves. */
export function datasetGraph(site: CatalogSite, dataset: FeedDataset): Quad[] {
  const graph = new Graph();
  addDataset(graph, site, dataset);
  return graph.quads;
}

/** One page of the catalog in DCAT-AP 3, with its Hydra paging links. */
export function catalogGraph(site: CatalogSite, datasets: FeedDataset[], view: CatalogView): Quad[] {
  const graph = new Graph();
  const catalog = namedNode(catalogIri(site));
  graph.add(catalog, rdf('type'), dcat('Catalog'));
  graph.text(catalog, dct('title'), site.siteName);
  graph.text(catalog, dct('description'), `The public datasets of ${site.siteName}.`);
  const publisher = namedNode(`${site.publicUrl}/#publisher`);
  graph.add(catalog, dct('publisher'), publisher);
  graph.add(publisher, rdf('type'), foaf('Agent'));
  graph.text(publisher, foaf('name'), site.siteName);
  const homepage = namedNode(`${site.publicUrl}/`);
  graph.add(catalog, foaf('homepage'), homepage);
  graph.add(homepage, rdf('type'), foaf('Document'));
  for (const dataset of datasets) graph.add(catalog, dcat('dataset'), addDataset(graph, site, dataset));

  const last = Math.max(1, Math.ceil(view.total / view.pageSize));
  const count = (n: number) => literal(String(n), xsd('integer'));
  const page = namedNode(view.pageUrl(view.page));
  graph.add(catalog, hydra('totalItems'), count(view.total));
  graph.add(catalog, hydra('view'), page);
  graph.add(page, rdf('type'), hydra('PartialCollectionView'));
  graph.add(page, hydra('totalItems'), count(view.total));
  graph.add(page, hydra('itemsPerPage'), count(view.pageSize));
  graph.add(page, hydra('first'), namedNode(view.pageUrl(1)));
  graph.add(page, hydra('last'), namedNode(view.pageUrl(last)));
  if (view.page < last) graph.add(page, hydra('next'), namedNode(view.pageUrl(view.page + 1)));
  if (view.page > 1) graph.add(page, hydra('previous'), namedNode(view.pageUrl(Math.min(view.page - 1, last))));
  return graph.quads;
}
