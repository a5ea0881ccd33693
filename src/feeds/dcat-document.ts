import { DataFactory, type NamedNode, type Quad } from 'n3';
import type { Subject } from './dcat-terms.ts';

/** The graph a DCAT-AP document is built in, and the IRIs of what this site describes. */
const { namedNode, literal, quad } = DataFactory;

/** Where the catalog lives and what it is called: PUBLIC_URL and the site name. */
export interface CatalogSite {
  publicUrl: string;
  siteName: string;
}

export const catalogIri = (site: CatalogSite) => `${site.publicUrl}/catalog`;
export const datasetIri = (site: CatalogSite, datasetId: string) => `${site.publicUrl}/dataset/${datasetId}`;
export const distributionIri = (site: CatalogSite, datasetId: string, resourceId: string) =>
  `${datasetIri(site, datasetId)}/resource/${resourceId}`;

/** What Turtle's IRIREF and RDF/XML parsers refuse in an IRI, and WHATWG URL serialization leaves raw in a query. */
const NOT_IN_IRIREF = /[{}|\\^`]/g;

/**
 * An http(s) URL as an IRI, else null: normalised by `new URL` (which percent-encodes spaces, quotes and
 * angle brackets), then the few characters it leaves raw in a query percent-encoded too, so that strict
 * parsers (Jena-based harvesters) accept the document.
 */
export function httpIri(url: string | null | undefined): NamedNode | null {
  if (!url || !URL.canParse(url)) return null;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return namedNode(parsed.href.replace(NOT_IN_IRIREF, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
}

/**
 * An IRI this site describes itself (the catalog, a dataset or distribution, an organization): only the
 * site's own code says things about it. Other pages of the site stay a dataset's to link.
 */
export const isSiteIri = (site: CatalogSite, iri: Quad['subject'] | Quad['object']) =>
  iri.termType === 'NamedNode' &&
  ['/catalog', '/dataset/', '/organization/'].some((path) => iri.value.startsWith(`${site.publicUrl}${path}`));

/**
 * Triples each once (the same organization or license serves many datasets), grouped by subject in the
 * order met. A property of a node can be taken over (`takeOver`): the record's raw triples for it are
 * written instead of what Almanac's own fields would give.
 */
export class Graph {
  private readonly bySubject = new Map<string, Quad[]>();
  private readonly seen = new Set<string>();
  private readonly takenOver = new Map<string, Set<string>>();

  /** The triples, less those of blank nodes nothing points to any more (a value whose property was taken over). */
  get quads(): Quad[] {
    let quads = [...this.bySubject.values()].flat();
    for (;;) {
      const pointed = new Set(quads.filter((q) => q.object.termType === 'BlankNode').map((q) => q.object.value));
      const kept = quads.filter((q) => q.subject.termType !== 'BlankNode' || pointed.has(q.subject.value));
      if (kept.length === quads.length) return quads;
      quads = kept;
    }
  }

  takeOver(subject: Subject, predicates: Iterable<string>) {
    this.takenOver.set(`${subject.termType}${subject.value}`, new Set(predicates));
  }

  add(subject: Subject, predicate: NamedNode, object: Quad['object'], raw = false) {
    const subjectKey = `${subject.termType}${subject.value}`;
    if (!raw && this.takenOver.get(subjectKey)?.has(predicate.value)) return;
    const key = `${subjectKey} ${predicate.value} ${object.termType}${object.id}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const quads = this.bySubject.get(subjectKey) ?? [];
    quads.push(quad(subject, predicate, object));
    this.bySubject.set(subjectKey, quads);
  }

  text(subject: Subject, predicate: NamedNode, value: string | null | undefined) {
    if (value?.trim()) this.add(subject, predicate, literal(value));
  }
}
