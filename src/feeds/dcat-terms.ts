import { DataFactory, type BlankNode, type Literal, type NamedNode, type Quad } from 'n3';

/**
 * The vocabularies DCAT-AP 3's record speaks beyond the feeds' prefixes, and the literals its range shapes
 * want: a date's datatype follows its precision (xsd:gYear, xsd:gYearMonth, xsd:date, xsd:dateTime).
 */
const { namedNode, literal } = DataFactory;

export const NS = {
  adms: 'http://www.w3.org/ns/adms#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  prov: 'http://www.w3.org/ns/prov#',
  odrl: 'http://www.w3.org/ns/odrl/2/',
  dcatap: 'http://data.europa.eu/r5r/',
  locn: 'http://www.w3.org/ns/locn#',
  gsp: 'http://www.opengis.net/ont/geosparql#',
  time: 'http://www.w3.org/2006/time#',
  eli: 'http://data.europa.eu/eli/ontology#',
  org: 'http://www.w3.org/ns/org#',
  owl: 'http://www.w3.org/2002/07/owl#',
  /** DCAT-US 1.1's own fields (bureauCode, programCode, ...), which DCAT-AP has no property for. */
  pod: 'https://project-open-data.cio.gov/v1.1/schema#',
} as const;

const vocabulary = (prefix: keyof typeof NS) => (local: string) => namedNode(NS[prefix] + local);
export const adms = vocabulary('adms');
export const skos = vocabulary('skos');
export const prov = vocabulary('prov');
export const odrl = vocabulary('odrl');
export const dcatap = vocabulary('dcatap');
export const locn = vocabulary('locn');
export const gsp = vocabulary('gsp');
export const time = vocabulary('time');
export const eli = vocabulary('eli');
export const org = vocabulary('org');
export const pod = vocabulary('pod');

export type Subject = NamedNode | BlankNode;
export type RdfObject = Quad['object'];
/** Where triples go: the feed's graph, or a reader's scratch graph when it checks a mapping. */
export type TripleSink = (subject: Subject, predicate: NamedNode, object: RdfObject) => void;

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** A date of any precision as the literal its precision calls for; a repeating interval (R/P1D) stays plain text. */
export function dateLiteral(value: string): Literal {
  if (/^\d{4}$/.test(value)) return literal(value, namedNode(`${XSD}gYear`));
  if (/^\d{4}-\d{2}$/.test(value)) return literal(value, namedNode(`${XSD}gYearMonth`));
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return literal(value, namedNode(`${XSD}date`));
  if (/^\d{4}-\d{2}-\d{2}[T ]/.test(value)) return literal(value.replace(' ', 'T'), namedNode(`${XSD}dateTime`));
  return literal(value);
}

export const typedLiteral = (value: string, datatype: string) => literal(value, namedNode(`${XSD}${datatype}`));

/** An absolute IRI (any scheme) as a node, else null: what the record's `iri` values are. */
export function iriNode(value: string | null | undefined): NamedNode | null {
  if (!value || !/^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>"{}|\\^`]+$/.test(value)) return null;
  return namedNode(value);
}
