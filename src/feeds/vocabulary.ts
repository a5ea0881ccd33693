import { DataFactory, type NamedNode } from 'n3';

/** The vocabularies the feeds speak, by the prefixes DCAT-AP uses; Turtle, RDF/XML and JSON-LD share them. */
export const PREFIXES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  dcat: 'http://www.w3.org/ns/dcat#',
  dct: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
  spdx: 'http://spdx.org/rdf/terms#',
  hydra: 'http://www.w3.org/ns/hydra/core#',
} as const;

type Prefix = keyof typeof PREFIXES;

const vocabulary =
  <P extends Prefix>(prefix: P) =>
  (local: string): NamedNode =>
    DataFactory.namedNode(PREFIXES[prefix] + local);

export const rdf = vocabulary('rdf');
export const rdfs = vocabulary('rdfs');
export const xsd = vocabulary('xsd');
export const dcat = vocabulary('dcat');
export const dct = vocabulary('dct');
export const foaf = vocabulary('foaf');
export const vcard = vocabulary('vcard');
export const spdx = vocabulary('spdx');
export const hydra = vocabulary('hydra');
