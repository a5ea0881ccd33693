import type { PrivateNetworks } from '../../net/safe-fetch.ts';
import { createHash } from 'node:crypto';
import jsonld from 'jsonld';
import { Parser } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { SourceInvalid, SourceUnavailable } from '../../domain/harvest/errors.ts';
import { documentText, fetchSourceDocument, type SourceDocument } from '../fetch-document.ts';
import { licenseIdForUrl, licenseIdOf, NO_LICENSE } from '../licenses.ts';
import { slugFrom } from '../../domain/harvest/names.ts';
import type {
  HarvestCursor,
  HarvestItem,
  HarvestPage,
  HarvestRecord,
  HarvestResource,
  ReadPageOptions,
  SourceReader,
} from '../../domain/harvest/record.ts';
import { cleanTags } from '../tags.ts';
import { byteCount, email, isoInstant } from '../values.ts';
import { datasetRecordOf, distributionRecordOf } from './dcat-ap-record.ts';
import { withRawProperties } from './dcat-ap-lossless.ts';
import { RdfGraph, type RdfQuad, type RdfTerm } from './rdf-terms.ts';

/**
 * A DCAT-AP catalog (Turtle, N-Triples, TriG, N-Quads, JSON-LD or RDF/XML) read a document at a time, following the Hydra paging links (`hydra:next`, and the legacy
 * `hydra:nextPage` of older ckanext-dcat catalogs). The cursor is `{url, previous}`: the page to read and
 * a digest of the page before, so that a page linking to itself (or serving the same bytes under another
 * URL) fails instead of looping.
 */
export const DCAT_AP_PAGE_MAX_BYTES = 50 * 1024 * 1024;
const CONTEXT_MAX_BYTES = 1024 * 1024;

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const DCAT = 'http://www.w3.org/ns/dcat#';
const DCT = 'http://purl.org/dc/terms/';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const VCARD = 'http://www.w3.org/2006/vcard/ns#';
const HYDRA = 'http://www.w3.org/ns/hydra/core#';
const SKOS = 'http://www.w3.org/2004/02/skos/core#';
const OWL = 'http://www.w3.org/2002/07/owl#';
const ADMS = 'http://www.w3.org/ns/adms#';
const ACCESS_RIGHT = 'http://publications.europa.eu/resource/authority/access-right/';
const IANA_MEDIA_TYPE = /^https?:\/\/www\.iana\.org\/assignments\/media-types\//i;

export interface DcatApReaderOptions {
  allowPrivateNetworks: PrivateNetworks;
}

type Syntax = 'turtle' | 'trig' | 'n-triples' | 'n-quads' | 'json-ld' | 'rdf-xml';

const BY_CONTENT_TYPE: Record<string, Syntax> = {
  'text/turtle': 'turtle',
  'application/turtle': 'turtle',
  'application/x-turtle': 'turtle',
  'text/n3': 'turtle',
  'application/trig': 'trig',
  'application/n-triples': 'n-triples',
  'application/n-quads': 'n-quads',
  'application/ld+json': 'json-ld',
  'application/json': 'json-ld',
  'application/rdf+xml': 'rdf-xml',
  'application/xml': 'rdf-xml',
  'text/xml': 'rdf-xml',
};
const BY_EXTENSION: Record<string, Syntax> = {
  ttl: 'turtle',
  n3: 'turtle',
  trig: 'trig',
  nt: 'n-triples',
  nq: 'n-quads',
  jsonld: 'json-ld',
  json: 'json-ld',
  rdf: 'rdf-xml',
  xml: 'rdf-xml',
  owl: 'rdf-xml',
};
const N3_FORMATS = { turtle: 'Turtle', trig: 'TriG', 'n-triples': 'N-Triples', 'n-quads': 'N-Quads' } as const;

const ACCEPT =
  'text/turtle, application/ld+json;q=0.9, application/n-triples;q=0.8, application/trig;q=0.7, application/rdf+xml;q=0.3, */*;q=0.1';

/** The syntax of a page: by its Content-Type, else by its URL's extension, else by its first characters. */
export function rdfSyntaxOf(doc: { url: string; contentType: string | null }, head: string): Syntax {
  const byType = doc.contentType ? BY_CONTENT_TYPE[doc.contentType] : undefined;
  if (byType) return byType;
  const extension = /\.([a-z0-9]+)$/i.exec(new URL(doc.url).pathname)?.[1]?.toLowerCase();
  const byExtension = extension ? BY_EXTENSION[extension] : undefined;
  if (byExtension) return byExtension;
  const start = head.trimStart();
  if (/^<(\?xml|!|rdf:RDF|[A-Za-z_][\w.-]*:[A-Za-z_])/.test(start)) return 'rdf-xml';
  if (start.startsWith('{') || start.startsWith('[')) return 'json-ld';
  return 'turtle';
}

export function dcatApReader(url: string, opts: DcatApReaderOptions): SourceReader {
  return {
    async readPage(cursor: HarvestCursor | null, read: ReadPageOptions): Promise<HarvestPage> {
      const pageUrl = typeof cursor?.url === 'string' ? cursor.url : url;
      const doc = await fetchSourceDocument(pageUrl, {
        timeoutMs: read.timeoutMs,
        maxBytes: DCAT_AP_PAGE_MAX_BYTES,
        allowPrivateNetworks: opts.allowPrivateNetworks,
        accept: ACCEPT,
      });
      const digest = createHash('sha256').update(doc.body).digest('hex');
      if (cursor?.previous === digest) {
        throw new SourceInvalid(`the paging of ${url} does not seem to work: ${pageUrl} answered the same page as the one before`);
      }
      const graph = new RdfGraph(await parsePage(doc, { timeoutMs: read.timeoutMs, allowPrivateNetworks: opts.allowPrivateNetworks }));
      const items = datasetNodes(graph).map((node, i) => dcatApItem(graph, node, i));
      const next = nextPage(graph, doc.url);
      if (next && (next === pageUrl || next === doc.url)) {
        throw new SourceInvalid(`the paging of ${url} does not seem to work: ${pageUrl} names itself as the next page`);
      }
      return { items, next: next ? { url: next, previous: digest } : null };
    },
  };
}

async function parsePage(doc: SourceDocument, opts: { timeoutMs: number; allowPrivateNetworks: PrivateNetworks }): Promise<RdfQuad[]> {
  const text = documentText(doc);
  const syntax = rdfSyntaxOf(doc, text.slice(0, 200));
  if (syntax === 'rdf-xml') return parseRdfXml(doc.url, text);
  if (syntax === 'json-ld') return parseJsonLd(doc.url, text, opts);
  try {
    return new Parser({ format: N3_FORMATS[syntax], baseIRI: doc.url }).parse(text);
  } catch (err) {
    throw new SourceInvalid(`${doc.url} is not valid ${N3_FORMATS[syntax]}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** RDF/XML through rdfxml-streaming-parser (saxes underneath: no DTD, so no entity expansion). */
function parseRdfXml(url: string, text: string): Promise<RdfQuad[]> {
  return new Promise((resolve, reject) => {
    const quads: RdfQuad[] = [];
    const parser = new RdfXmlParser({ baseIRI: url });
    parser.on('data', (quad: RdfQuad) => quads.push(quad));
    parser.on('error', (err: Error) => reject(new SourceInvalid(`${url} is not valid RDF/XML: ${err.message}`)));
    parser.on('end', () => resolve(quads));
    parser.end(text);
  });
}

/** Remote JSON-LD contexts on public addresses, fetched as the pages are (safeFetch, bounded), kept for the process's life. */
const contexts = new Map<string, Promise<unknown>>();
const CONTEXTS_KEPT = 50;

async function parseJsonLd(
  url: string,
  text: string,
  opts: { timeoutMs: number; allowPrivateNetworks: PrivateNetworks },
): Promise<RdfQuad[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new SourceInvalid(`${url} is not valid JSON-LD: it is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  let unavailable: Error | null = null;
  const rule = opts.allowPrivateNetworks;
  // A context this source may fetch from a private address is its own: kept for this document only, so
  // another source whose rule would refuse that address never gets it from the shared cache.
  const ownContexts = new Map<string, Promise<unknown>>();
  const documentLoader = async (contextUrl: string) => {
    let privateAllowed = rule === true;
    try {
      privateAllowed = typeof rule === 'function' ? rule(new URL(contextUrl)) : rule;
    } catch {
      // Not a URL: the fetch below refuses it.
    }
    const cache = privateAllowed ? ownContexts : contexts;
    let loaded = cache.get(contextUrl);
    if (!loaded) {
      loaded = fetchSourceDocument(contextUrl, {
        timeoutMs: opts.timeoutMs,
        maxBytes: CONTEXT_MAX_BYTES,
        allowPrivateNetworks: opts.allowPrivateNetworks,
        accept: 'application/ld+json, application/json;q=0.9',
      }).then((context) => JSON.parse(documentText(context)) as unknown);
      cache.set(contextUrl, loaded);
      if (cache.size > CONTEXTS_KEPT) cache.delete(cache.keys().next().value!);
      loaded.catch(() => cache.delete(contextUrl));
    }
    try {
      return { contextUrl: undefined, documentUrl: contextUrl, document: await loaded };
    } catch (err) {
      if (err instanceof SourceUnavailable) unavailable = err;
      throw err;
    }
  };
  try {
    const quads = await jsonld.toRDF(doc as jsonld.JsonLdDocument, { base: url, documentLoader } as jsonld.Options.ToRdf);
    return quads as unknown as RdfQuad[];
  } catch (err) {
    if (unavailable) throw unavailable;
    const reason = err instanceof Error ? err.message : String(err);
    throw new SourceInvalid(`${url} is not valid JSON-LD: ${reason}`);
  }
}

/** The next page's URL from the Hydra links, resolved against the page's own. */
function nextPage(graph: RdfGraph, base: string): string | null {
  for (const predicate of [`${HYDRA}next`, `${HYDRA}nextPage`]) {
    for (const [, object] of graph.pairs(predicate)) {
      if (object.termType === 'NamedNode' || object.termType === 'Literal') {
        if (URL.canParse(object.value, base)) return new URL(object.value, base).href;
      }
    }
  }
  return null;
}

/** The datasets of a page: typed dcat:Dataset, or named by a catalog's dcat:dataset, in document order. */
function datasetNodes(graph: RdfGraph): RdfTerm[] {
  const found = new Map<string, RdfTerm>();
  const add = (term: RdfTerm) => {
    const k = `${term.termType}${term.value}`;
    if (!found.has(k) && term.termType !== 'Literal') found.set(k, term);
  };
  for (const [subject, type] of graph.pairs(`${RDF}type`)) if (type.value === `${DCAT}Dataset`) add(subject);
  for (const [, dataset] of graph.pairs(`${DCAT}dataset`)) add(dataset);
  return [...found.values()];
}

const isHttp = (value: string) => /^https?:\/\//i.test(value);
const iriOrText = (term: RdfTerm | null) => (term && term.termType !== 'BlankNode' && term.value.trim() ? term.value.trim() : null);
const lastSegment = (iri: string) =>
  iri
    .replace(/[/#]+$/, '')
    .split(/[/#]/)
    .pop() || null;

/**
 * One dcat:Dataset as a harvest item: Almanac's fields, the metadata record (dcat-ap-record.ts), and as
 * raw extras whatever the record cannot give back exactly (dcat-ap-lossless.ts). Refused: a blank node
 * without dct:identifier (nothing stable to key it by), dct:accessRights NON_PUBLIC. RESTRICTED access is
 * kept private. A dataset without dct:title (DCAT-AP's examples of series members have none) is titled by
 * its identifier or IRI, and the feeds write no title back for it.
 */
export function dcatApItem(graph: RdfGraph, node: RdfTerm, index: number): HarvestItem {
  const iri = node.termType === 'NamedNode' ? node.value : null;
  const identifier = graph.text(node, `${DCT}identifier`) ?? iriOrText(graph.object(node, `${DCT}identifier`));
  const remoteId = identifier ?? iri;
  const given = graph.text(node, `${DCT}title`);
  if (!remoteId) {
    return { kind: 'refused', remoteId: `dataset[${index}]`, title: given, reason: 'a dataset with neither a dct:identifier nor an IRI' };
  }
  const title = given ?? identifier ?? (iri && lastSegment(iri)) ?? remoteId;
  const access = graph.object(node, `${DCT}accessRights`)?.value ?? '';
  if (access === `${ACCESS_RIGHT}NON_PUBLIC`) {
    return { kind: 'refused', remoteId, title, reason: 'non-public record (dct:accessRights NON_PUBLIC)', withdrawn: true };
  }
  const publisher = graph.object(node, `${DCT}publisher`);
  const publisherName = publisher ? (graph.text(publisher, `${FOAF}name`) ?? graph.text(publisher, `${SKOS}prefLabel`)) : null;
  const contact = graph.object(node, `${DCAT}contactPoint`);
  const creator = graph.object(node, `${DCT}creator`);
  const distributions = graph.objects(node, `${DCAT}distribution`);
  const linked = distributions.filter((d) => distributionUrl(graph, d));
  const landing = iriOrText(graph.object(node, `${DCAT}landingPage`));
  const record: HarvestRecord = {
    remoteId,
    remoteUrl: iri && isHttp(iri) ? iri : null,
    name: null,
    title,
    notes: graph.text(node, `${DCT}description`),
    tags: cleanTags(graph.texts(node, `${DCAT}keyword`)),
    licenseId: datasetLicense(graph, node, distributions),
    organization: publisherName ? { name: slugFrom(publisherName) || publisherName, title: publisherName, description: null } : null,
    groups: [],
    private: access === `${ACCESS_RIGHT}RESTRICTED`,
    author: creator ? graph.text(creator, `${FOAF}name`) : null,
    authorEmail: creator ? email(iriOrText(graph.object(creator, `${FOAF}mbox`))) : null,
    maintainer: contact ? (graph.text(contact, `${VCARD}fn`) ?? graph.text(contact, `${VCARD}organization-name`)) : null,
    maintainerEmail: contact ? email(iriOrText(graph.object(contact, `${VCARD}hasEmail`))) : null,
    version: graph.text(node, `${DCAT}version`) ?? graph.text(node, `${OWL}versionInfo`) ?? graph.text(node, `${ADMS}version`),
    url: landing,
    modified: isoInstant(graph.object(node, `${DCT}modified`)?.value),
    metadata: datasetRecordOf(graph, node),
    resources: linked.map((dist) => dcatApDistribution(graph, dist)!),
  };
  const unlinked = distributions.filter((d) => !linked.includes(d));
  return { kind: 'record', record: withRawProperties(graph, node, record, linked, unlinked) };
}

const distributionUrl = (graph: RdfGraph, node: RdfTerm) =>
  iriOrText(graph.object(node, `${DCAT}downloadURL`)) ?? iriOrText(graph.object(node, `${DCAT}accessURL`));

/** The dataset's dct:license, else the first one its distributions name (DCAT-AP puts it there). */
function datasetLicense(graph: RdfGraph, node: RdfTerm, distributions: RdfTerm[]): string {
  const license = graph.object(node, `${DCT}license`) ?? distributions.map((d) => graph.object(d, `${DCT}license`)).find(Boolean) ?? null;
  if (!license) return NO_LICENSE;
  if (license.termType === 'Literal') return licenseIdOf(license.value);
  const known = license.termType === 'NamedNode' ? licenseIdForUrl(license.value) : null;
  if (known) return known;
  // A described license: its identifier (our own feeds give one), else its IRI, else its title.
  const described = graph.text(license, `${DCT}identifier`);
  if (described) return licenseIdOf(described);
  if (license.termType === 'NamedNode') return licenseIdOf(license.value);
  return licenseIdOf(graph.text(license, `${DCT}title`) ?? graph.text(license, `${RDFS}label`));
}

/** A distribution with a dcat:downloadURL or dcat:accessURL; one with neither has nothing to link to. */
function dcatApDistribution(graph: RdfGraph, node: RdfTerm): HarvestResource | null {
  const url = distributionUrl(graph, node);
  if (!url) return null;
  return {
    metadata: distributionRecordOf(graph, node),
    url,
    name: graph.text(node, `${DCT}title`),
    description: graph.text(node, `${DCT}description`),
    format: termLabel(graph, graph.object(node, `${DCT}format`)),
    mimetype: mediaType(graph, graph.object(node, `${DCAT}mediaType`)),
    size: byteCount(graph.object(node, `${DCAT}byteSize`)?.value),
  };
}

/** A format named by a literal, a labelled node, or an authority IRI (its last segment: `…/file-type/CSV` → CSV). */
function termLabel(graph: RdfGraph, term: RdfTerm | null): string | null {
  if (!term) return null;
  if (term.termType === 'Literal') return term.value.trim() || null;
  const label = graph.text(term, `${RDFS}label`) ?? graph.text(term, `${SKOS}prefLabel`) ?? graph.text(term, `${DCT}title`);
  if (label) return label;
  return term.termType === 'NamedNode' ? lastSegment(term.value) : null;
}

/** An IANA media type IRI (`https://www.iana.org/assignments/media-types/text/csv`) as `text/csv`. */
function mediaType(graph: RdfGraph, term: RdfTerm | null): string | null {
  if (!term) return null;
  if (term.termType === 'NamedNode' && IANA_MEDIA_TYPE.test(term.value)) return term.value.replace(IANA_MEDIA_TYPE, '') || null;
  return termLabel(graph, term);
}
