import { DataFactory } from 'n3';
import type { Agent, RELATED_CLASSES } from '../domain/metadata/values.ts';
import { knownLabel, licenceTypes } from './dcat-authority-terms.ts';
import type { Place, Period } from '../domain/metadata/coverage.ts';
import { dateLiteral, iriNode, locn, gsp, org, skos, type Subject, type TripleSink } from './dcat-terms.ts';
import { dcat, dct, foaf, rdf, rdfs, vcard } from './vocabulary.ts';

/**
 * The nodes of the record's structured values (agents, contacts, concepts, periods, places), each with
 * the class DCAT-AP's range shapes want of it. A value with an IRI is that IRI's node; one without is a
 * blank node named by `label`, unique within a feed document.
 */
const { namedNode, blankNode, literal } = DataFactory;

export interface NodeWriter {
  add: TripleSink;
  /** A blank node label unique in the document for this value. */
  label: (suffix: string) => string;
}

const nodeFor = (w: NodeWriter, uri: string | null | undefined, suffix: string): Subject => iriNode(uri) ?? blankNode(w.label(suffix));
const text = (w: NodeWriter, s: Subject, p: ReturnType<typeof namedNode>, value: string | null | undefined) => {
  if (value) w.add(s, p, literal(value));
};

export const mailto = (email: string) => namedNode(`mailto:${email}`);

/**
 * A concept of a vocabulary (theme, type, status, access rights): its IRI's node, labelled with the
 * record's label, else the authority table's when Almanac knows it (a concept must have a prefLabel).
 */
export function conceptNode(w: NodeWriter, value: { uri?: string | null; label?: string | null }, type: string, suffix: string) {
  const node = nodeFor(w, value.uri, suffix);
  w.add(node, rdf('type'), namedNode(type));
  text(w, node, skos('prefLabel'), value.label ?? (type === skos('Concept').value ? knownLabel(value.uri) : null));
  return node;
}

/** A concept named by its IRI alone, labelled when the authority table is one Almanac knows. */
const knownConcept = (w: NodeWriter, iri: string) => conceptNode(w, { uri: iri }, skos('Concept').value, 'concept');

/** An IRI typed with the class its range wants (a standard, a page, legislation). */
export function typedIri(w: NodeWriter, value: string, type: string) {
  const node = iriNode(value);
  if (node) w.add(node, rdf('type'), namedNode(type));
  return node;
}

/** A dct:LicenseDocument with the ADMS licence types its id or IRI names (dct:type, which DCAT-AP recommends). */
export function licenseTypes(w: NodeWriter, node: Subject, idOrIri: string) {
  w.add(node, rdf('type'), dct('LicenseDocument'));
  for (const type of licenceTypes(idOrIri)) w.add(node, dct('type'), knownConcept(w, type));
}

/**
 * A DCAT resource the record links to, described (class, title, description, publisher, contact) so that
 * the link's range holds: a series of dcat:inSeries, the target of a qualified relation.
 */
export function relatedNode(
  w: NodeWriter,
  r: { uri: string; class: (typeof RELATED_CLASSES)[number]; title: string; description?: string | null; publisher?: Agent | null },
  contact:
    { name?: string | null; email?: string | null; url?: string | null; phone?: string | null; uri?: string | null } | null | undefined,
  suffix: string,
) {
  const node = iriNode(r.uri);
  if (!node) return;
  w.add(node, rdf('type'), dcat(r.class));
  text(w, node, dct('title'), r.title);
  text(w, node, dct('description'), r.description);
  if (r.publisher) w.add(node, dct('publisher'), agentNode(w, r.publisher, `${suffix}-publisher`));
  if (contact) w.add(node, dcat('contactPoint'), contactNode(w, contact, `${suffix}-contact`));
}

/** A foaf:Agent, with the organizations above it (org:subOrganizationOf). */
export function agentNode(w: NodeWriter, agent: Agent, suffix: string, depth = 0): Subject {
  const node = nodeFor(w, agent.uri, suffix);
  w.add(node, rdf('type'), foaf('Agent'));
  text(w, node, foaf('name'), agent.name);
  if (agent.email) w.add(node, foaf('mbox'), mailto(agent.email));
  const homepage = iriNode(agent.url);
  if (homepage) {
    w.add(node, foaf('homepage'), homepage);
    w.add(homepage, rdf('type'), foaf('Document'));
  }
  if (iriNode(agent.type)) w.add(node, dct('type'), knownConcept(w, agent.type!));
  if (agent.subOrganizationOf && depth < 5) {
    w.add(node, org('subOrganizationOf'), agentNode(w, agent.subOrganizationOf, `${suffix}-up`, depth + 1));
  }
  return node;
}

/** A vcard:Kind to contact. */
export function contactNode(
  w: NodeWriter,
  c: { name?: string | null; email?: string | null; url?: string | null; phone?: string | null; uri?: string | null },
  suffix: string,
) {
  const node = nodeFor(w, c.uri, suffix);
  w.add(node, rdf('type'), vcard('Kind'));
  text(w, node, vcard('fn'), c.name);
  if (c.email) w.add(node, vcard('hasEmail'), mailto(c.email));
  const url = iriNode(c.url);
  if (url) w.add(node, vcard('hasURL'), url);
  text(w, node, vcard('hasTelephone'), c.phone);
  return node;
}

/** A dct:PeriodOfTime with dcat:startDate / dcat:endDate, each typed by its precision. */
export function periodNode(w: NodeWriter, p: Period, suffix: string) {
  const node = blankNode(w.label(suffix));
  w.add(node, rdf('type'), dct('PeriodOfTime'));
  if (p.start) w.add(node, dcat('startDate'), dateLiteral(p.start));
  if (p.end) w.add(node, dcat('endDate'), dateLiteral(p.end));
  return node;
}

const wktBox = ([w, s, e, n]: readonly number[]) => `POLYGON((${w} ${s},${e} ${s},${e} ${n},${w} ${n},${w} ${s}))`;

/** A dct:Location: its gazetteer IRI, name (skos:prefLabel), GeoJSON geometry (locn:geometry), box and centroid (WKT). */
export function placeNode(w: NodeWriter, p: Place, suffix: string) {
  const node = nodeFor(w, p.uri, suffix);
  w.add(node, rdf('type'), dct('Location'));
  text(w, node, skos('prefLabel'), p.name);
  if (p.geometry) {
    // DCAT-AP 3's shapes want a locn:Geometry node; its GeoJSON text is the node's gsp:asGeoJSON.
    const geometry = blankNode(w.label(`${suffix}-geometry`));
    w.add(node, locn('geometry'), geometry);
    w.add(geometry, rdf('type'), locn('Geometry'));
    w.add(geometry, gsp('asGeoJSON'), literal(JSON.stringify(p.geometry), gsp('geoJSONLiteral')));
  }
  if (p.bbox) w.add(node, dcat('bbox'), literal(wktBox(p.bbox), gsp('wktLiteral')));
  if (p.centroid) w.add(node, dcat('centroid'), literal(`POINT(${p.centroid[0]} ${p.centroid[1]})`, gsp('wktLiteral')));
  return node;
}

/** A statement (rights, provenance): a blank node of its class with the text as rdfs:label. */
export function statementNode(w: NodeWriter, value: string, type: string, suffix: string) {
  const node = blankNode(w.label(suffix));
  w.add(node, rdf('type'), namedNode(type));
  w.add(node, rdfs('label'), literal(value));
  return node;
}
