import type { Quad, Term } from 'n3';
import { PREFIXES } from './vocabulary.ts';

/**
 * RDF/XML (RDF 1.1 XML Syntax) over n3's quads, which n3 cannot write: one `rdf:Description` per
 * subject, one property element per triple, objects as `rdf:resource`, `rdf:nodeID` or text with its
 * `xml:lang` or `rdf:datatype`. Graph names are dropped (RDF/XML holds one graph).
 */

/** XML 1.0's NameStartChar and NameChar (minus the colon), as code point ranges. */
const NAME_START: Array<[number, number]> = [
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
  [0xc0, 0xd6],
  [0xd8, 0xf6],
  [0xf8, 0x2ff],
  [0x370, 0x37d],
  [0x37f, 0x1fff],
  [0x200c, 0x200d],
  [0x2070, 0x218f],
  [0x2c00, 0x2fef],
  [0x3001, 0xd7ff],
  [0xf900, 0xfdcf],
  [0xfdf0, 0xfffd],
  [0x10000, 0xeffff],
];
const NAME_MORE: Array<[number, number]> = [
  [0x2d, 0x2e],
  [0x30, 0x39],
  [0xb7, 0xb7],
  [0x300, 0x36f],
  [0x203f, 0x2040],
];
const within = (ranges: Array<[number, number]>, c: string) => {
  const code = c.codePointAt(0)!;
  return ranges.some(([lo, hi]) => code >= lo && code <= hi);
};
const isNameStart = (c: string) => within(NAME_START, c);
const isNameChar = (c: string) => isNameStart(c) || within(NAME_MORE, c);
/** Characters XML 1.0 cannot carry at all, even escaped. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const escapeText = (s: string) =>
  s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
const escapeAttribute = (s: string) => escapeText(s).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');

/** `dcat:Dataset` for a predicate IRI: the longest known namespace, then an ns1… prefix for any other. */
class QNames {
  private readonly byNamespace = new Map<string, string>(Object.entries(PREFIXES).map(([prefix, ns]) => [ns, prefix]));
  private extra = 0;

  qname(iri: string): string {
    // The local name is the longest tail that is an XML name (no colon).
    let split = iri.length;
    while (split > 0 && isNameChar(iri[split - 1]!)) split--;
    while (split < iri.length && !isNameStart(iri[split]!)) split++;
    if (split >= iri.length) throw new Error(`RDF/XML cannot write the predicate <${iri}>: it has no XML local name`);
    const namespace = iri.slice(0, split);
    let prefix = this.byNamespace.get(namespace);
    if (!prefix) {
      prefix = `ns${++this.extra}`;
      this.byNamespace.set(namespace, prefix);
    }
    return `${prefix}:${iri.slice(split)}`;
  }

  declarations(): string {
    return [...this.byNamespace].map(([ns, prefix]) => `\n    xmlns:${prefix}="${escapeAttribute(ns)}"`).join('');
  }
}

/** A blank node's label as an XML name: n3's labels are letters, digits, `-` and `_`, but may start with a digit. */
const nodeId = (term: Term) => `b${term.value.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function subjectAttribute(term: Term): string {
  return term.termType === 'BlankNode' ? `rdf:nodeID="${nodeId(term)}"` : `rdf:about="${escapeAttribute(term.value)}"`;
}

function propertyElement(name: string, object: Term): string {
  if (object.termType === 'NamedNode') return `<${name} rdf:resource="${escapeAttribute(object.value)}"/>`;
  if (object.termType === 'BlankNode') return `<${name} rdf:nodeID="${nodeId(object)}"/>`;
  if (object.termType !== 'Literal') throw new Error(`RDF/XML cannot write a ${object.termType} object`);
  const lang = object.language ? ` xml:lang="${escapeAttribute(object.language)}"` : '';
  const datatype =
    !object.language && object.datatype.value !== `${PREFIXES.xsd}string`
      ? ` rdf:datatype="${escapeAttribute(object.datatype.value)}"`
      : '';
  return `<${name}${lang}${datatype}>${escapeText(object.value)}</${name}>`;
}

export function toRdfXml(quads: readonly Quad[]): string {
  const qnames = new QNames();
  const subjects = new Map<string, { subject: Term; properties: string[] }>();
  for (const q of quads) {
    const key = `${q.subject.termType}:${q.subject.value}`;
    let entry = subjects.get(key);
    if (!entry) subjects.set(key, (entry = { subject: q.subject, properties: [] }));
    entry.properties.push(propertyElement(qnames.qname(q.predicate.value), q.object));
  }
  const body = [...subjects.values()]
    .map(
      ({ subject, properties }) =>
        `  <rdf:Description ${subjectAttribute(subject)}>\n${properties.map((p) => `    ${p}`).join('\n')}\n  </rdf:Description>\n`,
    )
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF${qnames.declarations()}>\n${body}</rdf:RDF>\n`;
}
