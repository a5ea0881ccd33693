import jsonld from 'jsonld';
import { Writer, type Quad } from 'n3';
import { toRdfXml } from './rdf-xml.ts';
import { PREFIXES } from './vocabulary.ts';

/** The RDF serializations the feeds serve, by file extension. */
export const RDF_FORMATS = {
  ttl: 'text/turtle',
  jsonld: 'application/ld+json',
  rdf: 'application/rdf+xml',
} as const;

export type RdfFormat = keyof typeof RDF_FORMATS;

export const isRdfFormat = (ext: string): ext is RdfFormat => Object.hasOwn(RDF_FORMATS, ext);

/**
 * The format an Accept header asks for (`accepts` is Koa's ctx.accepts, which weighs q-values): Turtle,
 * JSON-LD (also for plain `application/json`) or RDF/XML; Turtle when the caller states no preference
 * or prefers something else.
 */
export function negotiateRdf(accepts: (...types: string[]) => string | false): RdfFormat {
  const chosen = accepts('text/turtle', 'application/ld+json', 'application/rdf+xml', 'application/json');
  if (chosen === 'application/ld+json' || chosen === 'application/json') return 'jsonld';
  if (chosen === 'application/rdf+xml') return 'rdf';
  return 'ttl';
}

/** The JSON-LD context of the feeds: the same prefixes as the Turtle. */
const CONTEXT = { ...PREFIXES };

function writeWith(quads: readonly Quad[], options: ConstructorParameters<typeof Writer>[0]): Promise<string> {
  return new Promise((resolve, reject) => {
    const writer = new Writer(options);
    writer.addQuads([...quads]);
    writer.end((err, out: string) => (err ? reject(err) : resolve(out)));
  });
}

export const toTurtle = (quads: readonly Quad[]) => writeWith(quads, { prefixes: { ...PREFIXES } });

/** Nothing the feeds compact refers to a remote context: any fetch would be a bug, and never a network call. */
const noRemoteDocuments = (url: string) => Promise.reject(new Error(`the feeds load no remote JSON-LD document (${url})`));

/**
 * The quads as jsonld.js's RDF dataset: plain terms, for jsonld's fromRDF to read directly (through an
 * N-Quads string its parser takes seconds for a page of 500 datasets; this takes milliseconds).
 */
function rdfDataset(quads: readonly Quad[]) {
  const term = (t: Quad['subject'] | Quad['predicate'] | Quad['object']) =>
    t.termType === 'Literal'
      ? {
          termType: 'Literal',
          value: t.value,
          datatype: { termType: 'NamedNode', value: t.datatype.value },
          ...(t.language ? { language: t.language } : {}),
        }
      : { termType: t.termType, value: t.value };
  return quads.map((q) => ({
    subject: term(q.subject),
    predicate: term(q.predicate),
    object: term(q.object),
    graph: { termType: 'DefaultGraph', value: '' },
  }));
}

/** JSON-LD from the quads (jsonld's fromRDF), compacted with the feeds' prefixes. */
export async function toJsonLd(quads: readonly Quad[]): Promise<string> {
  const expanded = await jsonld.fromRDF(rdfDataset(quads) as never);
  // fromRDF's output is expanded JSON-LD already: compaction need not expand it again.
  const compacted = await jsonld.compact(expanded, CONTEXT, {
    documentLoader: noRemoteDocuments as never,
    skipExpansion: true,
  } as jsonld.Options.Compact);
  return `${JSON.stringify(compacted, null, 2)}\n`;
}

export async function serializeRdf(quads: readonly Quad[], format: RdfFormat): Promise<string> {
  if (format === 'ttl') return toTurtle(quads);
  if (format === 'jsonld') return toJsonLd(quads);
  return toRdfXml(quads);
}
