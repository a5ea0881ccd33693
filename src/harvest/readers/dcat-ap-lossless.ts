import { mapDatasetMetadata, mapDistributionMetadata } from '../../domain/harvest/record-metadata.ts';
import type { HarvestRecord } from '../../domain/harvest/record.ts';
import { DATASET_RECORD, presentedRecord } from '../../domain/metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD } from '../../domain/metadata/distribution-record.ts';
import type { Extra } from '../../domain/metadata/extras.ts';
import { datasetGraph, datasetIri, distributionIri } from '../../feeds/dcat-graph.ts';
import { encodeTriples, keptWhile, type PlainTriple } from '../../feeds/dcat-raw-triples.ts';
import type { FeedDataset } from '../../feeds/public-datasets.ts';
import { NO_VERSIONS } from '../../domain/resources/published-versions.ts';
import { RdfGraph, type RdfTerm } from './rdf-terms.ts';

/**
 * Nothing a DCAT-AP source says of a dataset or distribution is dropped: the record mapped from it is
 * rendered through the feed's own writers, and every property whose triples do not come back out as the
 * source wrote them (a title in two languages, a WKT geometry, a property the record has no place for)
 * is kept whole as a raw extra (src/feeds/dcat-raw-triples.ts), which the feeds write in its place.
 * Compared as an RDF reader would: blank nodes by their content, named nodes by IRI, and the rdf:type
 * Almanac adds so that DCAT-AP's range shapes hold is no difference.
 */
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const DCT_TITLE = 'http://purl.org/dc/terms/title';
const DCAT_DISTRIBUTION = 'http://www.w3.org/ns/dcat#distribution';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const SITE = { publicUrl: 'http://almanac.invalid', siteName: 'check' };
const ID = 'record';
const CREATED = '2000-01-01T00:00:00.000Z';

const CANON_BUDGET = 10_000;

const same = (a: RdfTerm, b: RdfTerm) => a.termType === b.termType && a.value === b.value;

/**
 * A term as comparable text; `types`: the classes to ignore on blank nodes (null: every class). A source
 * is anyone's document: blank nodes that loop or fan out again and again must not cost exponential time,
 * so a node already on the path is a cycle, and one term's walk stops after `CANON_BUDGET` blank nodes
 * (a text that then differs only keeps the property as the source wrote it).
 */
function canon(
  graph: RdfGraph,
  term: RdfTerm,
  self: RdfTerm,
  types: Set<string> | null,
  depth = 0,
  walk = { left: CANON_BUDGET, path: new Set<string>() },
): string {
  if (same(term, self)) return '<SELF>';
  if (term.termType === 'Literal') {
    const datatype = term.datatype?.value;
    return JSON.stringify([
      term.value,
      term.language?.toLowerCase() ?? '',
      !datatype || datatype === XSD_STRING || datatype === LANG_STRING ? '' : datatype,
    ]);
  }
  if (term.termType !== 'BlankNode') return `<${term.value}>`;
  if (depth > 10 || walk.left <= 0) return '[…]';
  if (walk.path.has(term.value)) return '[cycle]';
  walk.left -= 1;
  walk.path.add(term.value);
  const parts = graph.predicates(term).flatMap((p) =>
    graph
      .objects(term, p)
      .filter((o) => p !== RDF_TYPE || (types !== null && !types.has(o.value)))
      .map((o) => `${p} ${canon(graph, o, self, types, depth + 1, walk)}`),
  );
  walk.path.delete(term.value);
  return `[${parts.sort().join(';')}]`;
}

/** The triples of (node, predicate) and of the blank nodes below them: the property's concise description. */
export function propertyTriples(graph: RdfGraph, node: RdfTerm, predicate: string): PlainTriple[] {
  const out: PlainTriple[] = [];
  const seen = new Set<string>();
  const below = (subject: RdfTerm) => {
    if (subject.termType !== 'BlankNode' || seen.has(subject.value)) return;
    seen.add(subject.value);
    for (const p of graph.predicates(subject)) for (const o of graph.objects(subject, p)) add(subject, p, o);
  };
  const add = (s: RdfTerm, p: string, o: RdfTerm) => {
    out.push({ subject: s, predicate: { termType: 'NamedNode', value: p }, object: o });
    below(o);
  };
  for (const o of graph.objects(node, predicate)) add(node, predicate, o);
  return out;
}

/** Everything said of a node (named or blank): a distribution kept whole. */
const nodeTriples = (graph: RdfGraph, node: RdfTerm) => graph.predicates(node).flatMap((p) => propertyTriples(graph, node, p));

/** A rendering of the record and where its node is in it. */
interface Rendering {
  graph: RdfGraph;
  node: RdfTerm;
}

const renderedObjects = (r: Rendering, predicate: string) =>
  r.graph
    .objects(r.node, predicate)
    .map((o) => canon(r.graph, o, r.node, null))
    .sort();

/**
 * The raw extras of the properties of `node` that `rendered` does not give back as the source wrote them,
 * each marked with the fields it stands in for (`fields`: the record's fields set, each with the rendering
 * made without it; a field whose absence changes the property's triples is one it stands in for).
 */
function differences(source: RdfGraph, node: RdfTerm, rendered: Rendering, fields: () => Array<[string, Rendering]>, record: object) {
  const types = new Set([...rendered.graph.pairs(RDF_TYPE)].map(([, o]) => o.value));
  const extras: Extra[] = [];
  const standsFor = (predicate: string) => {
    const full = JSON.stringify(renderedObjects(rendered, predicate));
    return fields().flatMap(([field, without]) => (JSON.stringify(renderedObjects(without, predicate)) === full ? [] : [field]));
  };
  for (const predicate of source.predicates(node)) {
    if (predicate === DCAT_DISTRIBUTION) continue;
    const given = source
      .objects(node, predicate)
      .map((o) => canon(source, o, node, types))
      .sort();
    if (JSON.stringify(given) !== JSON.stringify(renderedObjects(rendered, predicate))) {
      const value = encodeTriples(propertyTriples(source, node, predicate), node);
      extras.push({ key: predicate, value: keptWhile(value, record, standsFor(predicate)) });
    }
  }
  // A title Almanac made up (the source had none) is not written back, until one is given here.
  if (!source.objects(node, DCT_TITLE).length) extras.push({ key: DCT_TITLE, value: keptWhile('', record, standsFor(DCT_TITLE)) });
  return extras;
}

/** Almanac's own fields the feeds write, beside the record's keys. */
const DATASET_FIELDS = ['title', 'notes', 'tags', 'version', 'url', 'licenseId', 'author', 'authorEmail', 'maintainer', 'maintainerEmail'];
const RESOURCE_FIELDS = ['name', 'description', 'format', 'mimetype', 'size', 'url'];
const isSet = (v: unknown) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);
const cleared = (v: unknown) => (Array.isArray(v) ? [] : null);

/** The record as the feeds would see it once stored: what the check renders. */
function asFeedDataset(record: HarvestRecord): FeedDataset {
  const metadata = mapDatasetMetadata(record.metadata as Record<string, unknown>, []).metadata;
  return {
    ...record,
    id: ID,
    name: record.name ?? ID,
    notes: record.notes ?? null,
    licenseId: record.licenseId ?? null,
    url: record.url ?? null,
    organization: null,
    harvest: null,
    createdAt: CREATED,
    updatedAt: CREATED,
    publishedAt: null,
    ...presentedRecord(DATASET_RECORD, metadata),
    extras: [],
    resources: record.resources.map((r, i) => ({
      ...r,
      id: `r${i}`,
      urlType: 'link',
      name: r.name ?? null,
      description: r.description ?? null,
      format: r.format ?? null,
      mimetype: r.mimetype ?? null,
      hash: null,
      createdAt: CREATED,
      updatedAt: CREATED,
      ...presentedRecord(DISTRIBUTION_RECORD, mapDistributionMetadata(r.metadata as Record<string, unknown>, []).metadata),
      customExtras: [],
      versions: NO_VERSIONS,
    })),
  } as unknown as FeedDataset;
}

/**
 * The record with its raw extras: the dataset's and, for each resource, its distribution's
 * (`distributions[i]` is the source node of `record.resources[i]`); `unlinked` are the distributions
 * with no URL to make a resource of, kept whole under dcat:distribution.
 */
export function withRawProperties(source: RdfGraph, node: RdfTerm, record: HarvestRecord, distributions: RdfTerm[], unlinked: RdfTerm[]) {
  const dataset = asFeedDataset(record);
  const named = (iri: string): RdfTerm => ({ termType: 'NamedNode', value: iri });
  const render = (d: FeedDataset, at: RdfTerm): Rendering => ({ graph: new RdfGraph(datasetGraph(SITE, d)), node: at });
  const datasetNode = named(datasetIri(SITE, ID));
  const rendered = render(dataset, datasetNode);
  const datasetFields = [...DATASET_FIELDS, ...Object.keys(DATASET_RECORD)].filter((f) => isSet(dataset[f as keyof FeedDataset]));
  // Rendered again without each field, once, and only when a raw extra needs to know which fields it stands in for.
  const lazily = (fields: string[], make: (field: string) => FeedDataset, at: RdfTerm) => {
    let done: Array<[string, Rendering]> | null = null;
    return () => (done ??= fields.map((f): [string, Rendering] => [f, render(make(f), at)]));
  };
  const extras = differences(
    source,
    node,
    rendered,
    lazily(datasetFields, (f) => ({ ...dataset, [f]: cleared(dataset[f as keyof FeedDataset]) }), datasetNode),
    dataset,
  );
  if (unlinked.length) {
    const triples = unlinked.flatMap((d) => [
      { subject: node, predicate: named(DCAT_DISTRIBUTION), object: d },
      ...(d.termType === 'BlankNode' ? [] : nodeTriples(source, d)),
    ]);
    // A blank distribution's triples come with the dcat:distribution link (blank nodes below it).
    const blank = unlinked.filter((d) => d.termType === 'BlankNode');
    const linkedBlank = blank.length
      ? propertyTriples(source, node, DCAT_DISTRIBUTION).filter((t) => blank.some((b) => same(b, t.subject)))
      : [];
    extras.push({ key: DCAT_DISTRIBUTION, value: encodeTriples([...triples, ...linkedBlank], node) });
  }
  const resources = record.resources.map((resource, i) => {
    const at = named(distributionIri(SITE, ID, `r${i}`));
    const presented = dataset.resources[i]!;
    const fields = [...RESOURCE_FIELDS, ...Object.keys(DISTRIBUTION_RECORD)].filter((f) => isSet(presented[f as keyof typeof presented]));
    const make = (f: string) => ({
      ...dataset,
      resources: dataset.resources.map((r, j) => (j === i ? { ...r, [f]: cleared(r[f as keyof typeof r]) } : r)),
    });
    const own = differences(source, distributions[i]!, { ...rendered, node: at }, lazily(fields, make, at), presented);
    return own.length ? { ...resource, customExtras: [...(resource.customExtras ?? []), ...own] } : resource;
  });
  return { ...record, extras: [...(record.extras ?? []), ...extras], resources };
}
