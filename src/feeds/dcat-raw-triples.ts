import { createHash } from 'node:crypto';
import { DataFactory, Parser, Writer, type Quad } from 'n3';
import type { Extra } from '../domain/metadata/extras.ts';
import type { Subject } from './dcat-terms.ts';

/**
 * A harvested property Almanac's record cannot hold exactly (a title in several languages, a place as a
 * WKT literal, a property DCAT-AP names and the record does not) is kept in the extras: key = the
 * property's IRI, value = N-Triples of its triples and the blank nodes below them, the record's own node
 * written `_:subject`. The feeds write those triples back in place of what the record would give for that
 * property, so nothing a source said is dropped or altered. An empty value says the source had none.
 *
 * A raw property stands in for the fields whose values it was harvested with (dct:title for `title`, say):
 * a last comment line names them and the hash of their values then (`# kept while title hash to sha256:…`).
 * Once a write changes one of them (a PUT of a new title), the record's own value is written again and the
 * raw triples are left aside, so an edit is never hidden behind what the source said.
 */
const { namedNode, blankNode, literal, quad } = DataFactory;

export const SUBJECT_LABEL = 'subject';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

export interface PlainTerm {
  termType: string;
  value: string;
  language?: string;
  datatype?: { value: string };
}
export interface PlainTriple {
  subject: PlainTerm;
  predicate: PlainTerm;
  object: PlainTerm;
}

/** A property IRI: what a raw extra's key is (a CKAN extra's plain key never is one). */
export const isPropertyKey = (key: string) => /^https?:\/\/\S+$/.test(key);

/** Triples as a raw extra's value: `subject` becomes `_:subject`, other blank nodes `_:b0`, `_:b1`, … in order met. */
export function encodeTriples(triples: PlainTriple[], subject: PlainTerm): string {
  const labels = new Map<string, string>();
  const term = (t: PlainTerm) => {
    if (t.termType === subject.termType && t.value === subject.value) return blankNode(SUBJECT_LABEL);
    if (t.termType === 'BlankNode') {
      if (!labels.has(t.value)) labels.set(t.value, `b${labels.size}`);
      return blankNode(labels.get(t.value)!);
    }
    if (t.termType === 'Literal') {
      if (t.language) return literal(t.value, t.language);
      const datatype = t.datatype?.value;
      return literal(t.value, datatype && datatype !== XSD_STRING ? namedNode(datatype) : undefined);
    }
    return namedNode(t.value);
  };
  const quads = triples.map((t) => quad(term(t.subject) as Subject, namedNode(t.predicate.value), term(t.object) as Quad['object']));
  return new Writer({ format: 'N-Triples' }).quadsToString(quads);
}

/**
 * A raw extra's triples about `subject`, its other blank nodes renamed under `prefix` so that two
 * datasets of one document never share one. Null when the value is not such triples (a plain extra).
 */
export function decodeTriples(value: string, subject: Subject, prefix: string): Quad[] | null {
  let parsed: Quad[];
  try {
    parsed = new Parser({ format: 'N-Triples', blankNodePrefix: '' }).parse(value);
  } catch {
    return null;
  }
  const term = <T extends Quad['subject'] | Quad['object']>(t: T) =>
    t.termType !== 'BlankNode' ? t : t.value === SUBJECT_LABEL ? subject : blankNode(`${prefix}-${t.value}`);
  return parsed.map((q) => quad(term(q.subject) as Subject, q.predicate, term(q.object)));
}

const isEmpty = (v: unknown) =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Object.keys(v).length);

/** A value in a form that does not depend on key or list order (RDF has neither), empty parts left out. */
function canonical(value: unknown): unknown {
  if (isEmpty(value)) return null;
  if (Array.isArray(value)) return value.map((v) => JSON.stringify(canonical(v))).sort();
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => !isEmpty(v));
    return entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)]);
  }
  return value;
}

const fieldsHash = (source: object, fields: string[]) =>
  `sha256:${createHash('sha256')
    .update(JSON.stringify(fields.map((f) => [f, canonical((source as Record<string, unknown>)[f])])))
    .digest('hex')}`;

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/**
 * The raw properties of a harvested dataset's record only: those extras came from a source a sysadmin
 * chose, through the harvester. An extra an editor writes through the API is plain text in the feeds,
 * whatever its key, so no editor can put triples into the site's catalog.
 */
export function harvestedRawProperties(
  dataset: { harvest?: unknown },
  extras: Extra[] | null | undefined,
  subject: Subject,
  prefix: string,
  current: object,
): Map<string, Quad[]> {
  return dataset.harvest ? rawProperties(extras, subject, prefix, current) : new Map();
}

const KEPT_WHILE = /^# kept while (\S+) hash to (sha256:[0-9a-f]{64})$/m;

/** A raw extra's value that stands in for `fields` of `source` (none: it stands for nothing Almanac keeps). */
export function keptWhile(value: string, source: object, fields: string[]): string {
  return fields.length ? `${value}# kept while ${fields.join(',')} hash to ${fieldsHash(source, fields)}\n` : value;
}

/** Whether the fields a raw extra stands in for still hold the values it was harvested with. */
function stillAsHarvested(value: string, current: object): boolean {
  const kept = KEPT_WHILE.exec(value);
  return !kept || fieldsHash(current, kept[1]!.split(',')) === kept[2];
}

/**
 * The raw extras of a record (`current`: the dataset or resource as the feed has it): property IRI → its
 * triples (empty when the source had none), less those whose fields were changed since the harvest.
 */
export function rawProperties(extras: Extra[] | null | undefined, subject: Subject, prefix: string, current: object): Map<string, Quad[]> {
  const found = new Map<string, Quad[]>();
  (extras ?? []).forEach((e, i) => {
    // The node's class is the feed's to say: a raw rdf:type would take over `a dcat:Dataset`.
    if (!isPropertyKey(e.key) || e.key === RDF_TYPE || !stillAsHarvested(e.value, current)) return;
    const quads = decodeTriples(e.value, subject, `${prefix}-x${i}`);
    // Of the record's own node, only the key's property: an extra cannot pass for another field.
    if (quads && quads.every((q) => !q.subject.equals(subject) || q.predicate.value === e.key)) found.set(e.key, quads);
  });
  return found;
}
