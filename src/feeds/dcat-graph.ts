import { DataFactory, type NamedNode, type Quad } from 'n3';
import { DATASET_FIELDS } from '../domain/datasets/field-table.ts';
import { catalogIri, datasetIri, Graph, httpIri, isSiteIri, type CatalogSite } from './dcat-document.ts';
import { addDistribution, addFields, addLicense, addRawProperties } from './dcat-distribution.ts';
import { mailto } from './dcat-record-nodes.ts';
import { harvestedRawProperties } from './dcat-raw-triples.ts';
import { DATASET_WRITERS, writeRecord } from './dcat-record-writer.ts';
import { adms, skos } from './dcat-terms.ts';
import { dcatProperties } from './field-mappings.ts';
import type { FeedDataset } from './public-datasets.ts';
import { dcat, dct, foaf, hydra, rdf, vcard, xsd } from './vocabulary.ts';

export { catalogIri, datasetIri, distributionIri, type CatalogSite } from './dcat-document.ts';

const { namedNode, blankNode, literal } = DataFactory;

/** The page of the catalog a document holds, and how to name any other page (Hydra links). */
export interface CatalogView {
  page: number;
  pageSize: number;
  total: number;
  pageUrl(page: number): string;
}

/** The EU access-rights authority's "public": what every dataset in a feed is, unless its record says otherwise. */
const PUBLIC_ACCESS = 'http://publications.europa.eu/resource/authority/access-right/PUBLIC';

const dateTime = (iso: string) => literal(iso, xsd('dateTime'));
const DATASET_PROPERTIES = dcatProperties(DATASET_FIELDS);

/**
 * A harvested dataset's origin: its id at the source as `adms:identifier`, and the record it was made
 * from as `dct:source` (a dcat:Dataset, titled like this one, as DCAT-AP's shapes want of its range).
 */
function addProvenance(graph: Graph, site: CatalogSite, node: NamedNode, dataset: FeedDataset, title: string, description: string) {
  const harvest = dataset.harvest!;
  const identifier = blankNode(`remote-id-${dataset.id}`);
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

/** Who published, made and answers for it: the record's agents, else the organization, author and maintainer. */
function addPeople(graph: Graph, site: CatalogSite, node: NamedNode, dataset: FeedDataset) {
  if (dataset.organization && !dataset.publisher) {
    const org = namedNode(`${site.publicUrl}/organization/${dataset.organization.id}`);
    graph.add(node, dct('publisher'), org);
    graph.add(org, rdf('type'), foaf('Agent'));
    graph.add(org, rdf('type'), foaf('Organization'));
    graph.text(org, foaf('name'), dataset.organization.title || dataset.organization.name);
  }
  if ((dataset.author || dataset.authorEmail) && !dataset.creator) {
    const creator = blankNode(`creator-${dataset.id}`);
    graph.add(node, dct('creator'), creator);
    graph.add(creator, rdf('type'), foaf('Agent'));
    graph.text(creator, foaf('name'), dataset.author ?? dataset.authorEmail);
    if (dataset.authorEmail) graph.add(creator, foaf('mbox'), mailto(dataset.authorEmail));
  }
  const contactName = dataset.maintainer ?? dataset.author;
  const contactEmail = dataset.maintainerEmail ?? dataset.authorEmail;
  if ((contactName || contactEmail) && !dataset.contactPoint?.length) {
    const contact = blankNode(`contact-${dataset.id}`);
    graph.add(node, dcat('contactPoint'), contact);
    graph.add(contact, rdf('type'), vcard('Kind'));
    graph.text(contact, vcard('fn'), contactName ?? contactEmail);
    if (contactEmail) graph.add(contact, vcard('hasEmail'), mailto(contactEmail));
  }
}

/**
 * One dataset: its metadata record (every key it holds), then Almanac's own fields for what the record
 * leaves unset, then the source's raw triples for the properties the record could not hold exactly.
 */
function addDataset(graph: Graph, site: CatalogSite, dataset: FeedDataset): NamedNode {
  const node = namedNode(datasetIri(site, dataset.id));
  const raw = harvestedRawProperties(dataset, dataset.extras, node, `d-${dataset.id}`, dataset);
  // The distributions of the resources are always written; a raw dcat:distribution adds those the source had without a URL.
  graph.takeOver(
    node,
    [...raw.keys()].filter((p) => p !== dcat('distribution').value),
  );
  const title = dataset.title?.trim() || dataset.name;
  const description = dataset.notes?.trim() || title;
  graph.add(node, rdf('type'), dcat('Dataset'));
  graph.text(node, dct('title'), title);
  // dct:description is mandatory in DCAT-AP; a dataset without notes is described by its title.
  graph.text(node, dct('description'), description);
  writeRecord(DATASET_WRITERS, { add: (s, p, o) => graph.add(s, p, o), label: (s) => `d-${dataset.id}-${s}` }, node, dataset);
  if (!dataset.identifier) graph.add(node, dct('identifier'), literal(dataset.id));
  if (dataset.harvest) addProvenance(graph, site, node, dataset, title, description);
  for (const tag of dataset.tags) graph.text(node, dcat('keyword'), tag);
  if (!dataset.issued) graph.add(node, dct('issued'), dateTime(dataset.publishedAt ?? dataset.createdAt));
  if (!dataset.modified) graph.add(node, dct('modified'), dateTime(dataset.updatedAt));
  addFields(graph, node, DATASET_PROPERTIES, dataset);
  if (!dataset.accessRights) {
    graph.add(node, dct('accessRights'), namedNode(PUBLIC_ACCESS));
    graph.add(namedNode(PUBLIC_ACCESS), rdf('type'), dct('RightsStatement'));
  }
  const landing = httpIri(dataset.url);
  // Typing a page of this site as a foaf:Document would be a triple about one of its own subjects.
  if (landing && !isSiteIri(site, landing)) {
    graph.add(node, dcat('landingPage'), landing);
    graph.add(landing, rdf('type'), foaf('Document'));
  }
  addPeople(graph, site, node, dataset);
  const license = addLicense(graph, dataset.licenseId);
  // DCAT-AP puts the license on each distribution; DCAT 3 also allows it on the dataset, where harvesters look first.
  if (license) graph.add(node, dct('license'), license);
  for (const resource of dataset.resources) graph.add(node, dcat('distribution'), addDistribution(graph, site, dataset, resource, license));
  addRawProperties(graph, site, node, raw);
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
